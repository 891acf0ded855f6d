package io.treecat.rest.nativeapi;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.load.BulkLoader;
import io.treecat.core.query.exec.Continuation;
import io.treecat.core.query.exec.QueryOptions;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.txn.TransactionId;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of what the native JSON API reads from a request before it calls the
 * catalog (docs/robustness.md): the bodies of begin, clone, snapshot and commit, the lines of a
 * load, and the parameters of a query (its text, read point, projection, limit and page token). The
 * first line of an input names the request ({@link Kind}); the rest is its body, or for a query one
 * parameter a line. Whatever a reader throws must be a 4xx through the API's one error table
 * ({@link ApiErrors}): never a 5xx, a stack overflow or a hang.
 */
class TestNativeRequestsFuzzing {
    /** Configured as the server's mapper for these bodies (Dropwizard's, unknown fields refused). */
    private static final JsonBodies BODIES = new JsonBodies(JsonLimits.DEFAULTS);

    private static final ApiErrors ERRORS = new ApiErrors();

    /** The request an input stands for, by the name on its first line (else by the line's hash). */
    enum Kind {
        BEGIN,
        CLONE,
        SNAPSHOT,
        COMMIT,
        LOAD,
        QUERY,
        TRANSACTION;

        static Kind of(String line) {
            for (Kind kind : values()) {
                if (kind.name().equalsIgnoreCase(line.trim())) {
                    return kind;
                }
            }
            return values()[Math.floorMod(line.hashCode(), values().length)];
        }
    }

    // Dictionary entries are in libFuzzer's syntax: \x0A is a newline.
    @FuzzTest(maxDuration = "2m")
    @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @DictionaryEntries({
        "begin\\x0A",
        "clone\\x0A",
        "snapshot\\x0A",
        "commit\\x0A",
        "load\\x0A",
        "query\\x0A",
        "transaction\\x0A",
        "{\"mode\":",
        "\"read-write\"",
        "\"read-only\"",
        "\"vid\":",
        "\"snapshot\":",
        "\"name\":",
        "\"source\":",
        "\"target\":",
        "{\"writes\":[{\"op\":\"add\",\"path\":\"/a\",\"value\":{}}]}",
        "{\"path\":\"/a\",\"kind\":\"leaf\",\"value\":{}}",
        "/[obj_id='a']/*",
        "AQAAAAAAAAAB",
        "leaves",
        "inner",
        "both",
        "1.5",
        "-1",
        "9223372036854775808",
        "null"
    })
    void nativeRequestIsReadOrRefusedWithA4xx(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        Kind kind = Kind.of(newline < 0 ? text : text.substring(0, newline));
        String body = newline < 0 ? "" : text.substring(newline + 1);
        try {
            read(kind, body);
        } catch (RuntimeException e) {
            int status = ERRORS.toResponse(e).getStatus();
            if (status < 400 || status > 499) {
                throw new AssertionError("Answered " + status + ", not a 4xx, for " + kind + ": " + body, e);
            }
        }
    }

    /** What each resource does with the request before it reaches the catalog. */
    private static void read(Kind kind, String body) {
        switch (kind) {
            case BEGIN -> {
                TransactionResource.BeginRequest request =
                        BODIES.read(stream(body), TransactionResource.BeginRequest.class);
                if (request != null) {
                    Requests.mode(request.mode());
                    Requests.readPoint(request.vid(), request.snapshot());
                }
            }
            case CLONE -> {
                WriteResource.CloneRequest request = BODIES.read(stream(body), WriteResource.CloneRequest.class);
                if (request != null) {
                    Requests.path("source", request.source());
                    Requests.path("target", request.target());
                    Requests.readPoint(request.vid(), request.snapshot());
                }
            }
            case SNAPSHOT -> {
                WriteResource.SnapshotRequest request = BODIES.read(stream(body), WriteResource.SnapshotRequest.class);
                if (request != null) {
                    Requests.readPoint(request.vid(), request.snapshot());
                }
            }
            case COMMIT -> BODIES.writeSet(stream(body), 42);
            case LOAD -> {
                long line = 0;
                for (String record : body.split("\n", -1)) {
                    line++;
                    if (!record.isBlank()) {
                        BulkLoader.parse(record, line);
                    }
                }
            }
            case QUERY -> query(Arrays.asList(body.split("\n", -1)));
            case TRANSACTION -> TransactionId.valueOf(body);
        }
    }

    /** {@code q}, {@code vid}, {@code snapshot}, {@code results}, {@code fields}, {@code limit}, {@code pageToken}, one a line (absent when missing). */
    private static void query(List<String> lines) {
        QueryRequest request = Requests.query(
                parameter(lines, 0),
                Requests.readPoint(parameter(lines, 1), parameter(lines, 2)),
                parameter(lines, 3),
                parameter(lines, 4),
                parameter(lines, 5),
                parameter(lines, 6));
        QueryParser.parse(request.query());
        Optional<Continuation> after = request.pageToken().map(Continuation::decode);
        QueryOptions options = QueryOptions.at(after.map(Continuation::vid).orElse(0L))
                .withResults(request.results())
                .withProjection(request.projection());
        if (after.isPresent()) {
            options.after(after.get());
        }
    }

    private static String parameter(List<String> lines, int index) {
        return index < lines.size() ? lines.get(index) : null;
    }

    private static InputStream stream(String body) {
        return new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
    }
}
