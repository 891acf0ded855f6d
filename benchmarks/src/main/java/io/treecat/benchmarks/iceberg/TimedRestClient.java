package io.treecat.benchmarks.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.rest.ParserContext;
import org.apache.iceberg.rest.RESTClient;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.auth.AuthSession;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * Iceberg's own REST client ({@code HTTPClient}) with a stopwatch on the table commit request: every call goes to the
 * wrapped client unchanged, and a {@code POST .../namespaces/{ns}/tables/{table}} (what {@code RESTTableOperations}
 * sends for a commit) is timed from the call to the parsed response, and counted as a conflict when the server
 * answered 409 ({@link CommitFailedException}). So a commit's latency is the request's own, without the manifest and
 * manifest list the client writes before it, and a client's retries after a 409 are counted one by one.
 *
 * <p>Every method of {@link RESTClient} is passed on, the default ones too, since {@code HTTPClient} overrides them
 * (the parser context of a load, the response headers of an ETag).
 */
final class TimedRestClient implements RESTClient {
    private static final Pattern TABLE_COMMIT = Pattern.compile("(^|/)namespaces/[^/]+/tables/[^/]+$");

    private final RESTClient delegate;
    private final Stopwatch stopwatch;

    /** Where the timings go: shared by a client and the clients {@link #withAuthSession} makes from it. */
    static final class Stopwatch {
        private volatile LongConsumer commits = nanos -> {};
        private final AtomicLong conflicts = new AtomicLong();

        /** From now on, each commit request's duration in nanoseconds goes to {@code sink}. */
        void recordCommitsTo(LongConsumer sink) {
            this.commits = requireNonNull(sink, "sink is null");
        }

        /** The commit requests answered with 409 so far. */
        long conflicts() {
            return conflicts.get();
        }
    }

    TimedRestClient(RESTClient delegate, Stopwatch stopwatch) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.stopwatch = requireNonNull(stopwatch, "stopwatch is null");
    }

    private <T> T timed(String path, Supplier<T> call) {
        if (!TABLE_COMMIT.matcher(path).find()) {
            return call.get();
        }
        long start = System.nanoTime();
        try {
            T result = call.get();
            stopwatch.commits.accept(System.nanoTime() - start);
            return result;
        } catch (CommitFailedException e) {
            stopwatch.conflicts.incrementAndGet();
            throw e;
        }
    }

    @Override
    public void head(String path, Supplier<Map<String, String>> headers, Consumer<ErrorResponse> errorHandler) {
        delegate.head(path, headers, errorHandler);
    }

    @Override
    public void head(String path, Map<String, String> headers, Consumer<ErrorResponse> errorHandler) {
        delegate.head(path, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T delete(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.delete(path, queryParams, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T delete(
            String path,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.delete(path, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T delete(
            String path, Class<T> responseType, Map<String, String> headers, Consumer<ErrorResponse> errorHandler) {
        return delegate.delete(path, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T delete(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.delete(path, queryParams, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.get(path, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path, Class<T> responseType, Map<String, String> headers, Consumer<ErrorResponse> errorHandler) {
        return delegate.get(path, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.get(path, queryParams, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            ParserContext parserContext) {
        return delegate.get(path, queryParams, responseType, headers, errorHandler, parserContext);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders) {
        return delegate.get(path, queryParams, responseType, headers, errorHandler, responseHeaders);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders) {
        return delegate.get(path, queryParams, responseType, headers, errorHandler, responseHeaders);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.get(path, queryParams, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler) {
        return timed(path, () -> delegate.post(path, body, responseType, headers, errorHandler));
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders) {
        return timed(path, () -> delegate.post(path, body, responseType, headers, errorHandler, responseHeaders));
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders,
            ParserContext parserContext) {
        return timed(
                path,
                () -> delegate.post(path, body, responseType, headers, errorHandler, responseHeaders, parserContext));
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders) {
        return timed(path, () -> delegate.post(path, body, responseType, headers, errorHandler, responseHeaders));
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return timed(path, () -> delegate.post(path, body, responseType, headers, errorHandler));
    }

    @Override
    public <T extends RESTResponse> T postForm(
            String path,
            Map<String, String> formData,
            Class<T> responseType,
            Supplier<Map<String, String>> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.postForm(path, formData, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T postForm(
            String path,
            Map<String, String> formData,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return delegate.postForm(path, formData, responseType, headers, errorHandler);
    }

    @Override
    public RESTClient withAuthSession(AuthSession session) {
        return new TimedRestClient(delegate.withAuthSession(session), stopwatch);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
