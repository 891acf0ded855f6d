package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.idempotency.IdempotencyRecords;
import io.treecat.lakehouse.txn.TransactionRunner;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.rest.RESTUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Idempotency-Key} of the Iceberg REST spec, for the mutating routes ({@code POST} and
 * {@code DELETE} under {@code /v1}): the final response of a request with a key is remembered for
 * {@link #LIFETIME} (which {@code /v1/config} advertises as {@code idempotency-key-lifetime}), and a
 * request repeating the key gets that response again without running a second time.
 *
 * <p>As the spec's finalization rules say: 2xx and 4xx responses are final and replayed; a 5xx is
 * not kept, so a retry runs again. A second request with the key while the first still runs waits
 * for it (the two never both execute) and replays its response. The same key with a different
 * request (method, path, query or body) is the client's mistake: 422
 * {@code UnprocessableEntityException}.
 *
 * <p>Two layers. In memory ({@link IdempotencyKeys}, bounded): every key's final answer, 2xx and 4xx, and the
 * requests still running, which is what makes concurrent repeats wait. Durable ({@link IdempotencyRecords}, in the
 * tree): for a request that committed, its key's record is written in the request's own commit ({@link
 * TransactionRunner#attach}), so after a restart a repeat finds it and is answered from it ({@link
 * IdempotentReplays}) instead of running again; a request that failed or committed nothing leaves no record. A 4xx
 * answer stays in memory only: after a restart its repeat runs again (and fails again, or now succeeds).
 */
final class IcebergIdempotency implements ContainerRequestFilter, ContainerResponseFilter {
    static final Duration LIFETIME = Duration.ofMinutes(30);
    static final int DEFAULT_MAX_ENTRIES = 10_000;
    /** The most bytes of answers kept in memory; past it the oldest finished keys are answered from their records. */
    static final long DEFAULT_MAX_ANSWER_BYTES = 64L << 20;
    /**
     * At most this many durable records ({@link IdempotencyRecords}): a few hundred bytes each, and room for 50 keyed
     * commits a second over the whole lifetime before the oldest go early.
     */
    static final int MAX_RECORDS = 100_000;
    /** How long a repeat waits for the first request with its key; then 503, and the client retries. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final int MAX_KEY_LENGTH = 128;
    private static final String ENTRY = IcebergIdempotency.class.getName() + ".entry";

    private static final String ATTACHED = IcebergIdempotency.class.getName() + ".attached";
    private static final Logger LOG = LoggerFactory.getLogger(IcebergIdempotency.class);

    private final IdempotencyKeys keys;
    private final IdempotencyRecords records;
    private final IdempotentReplays replays;

    IcebergIdempotency(IdempotencyKeys keys, IdempotencyRecords records, IdempotentReplays replays) {
        this.keys = requireNonNull(keys, "keys is null");
        this.records = requireNonNull(records, "records is null");
        this.replays = requireNonNull(replays, "replays is null");
    }

    /**
     * Registers the filters to run after the body-size limit ({@code Priorities.USER}), so the body
     * this filter reads to fingerprint a request is already bounded.
     */
    Feature feature() {
        IcebergIdempotency filters = this;
        return new Feature() {
            @Override
            public boolean configure(FeatureContext context) {
                context.register(filters, Priorities.USER + 100);
                return true;
            }
        };
    }

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        // A request thread is reused: nothing a request before left bound may ride on this one's commit.
        records.detach();
        String key = request.getHeaderString(RESTUtil.IDEMPOTENCY_KEY_HEADER);
        String method = request.getMethod();
        if (key == null
                || !(method.equals("POST") || method.equals("DELETE"))
                || !IcebergRest.owns(request.getUriInfo().getPath())) {
            return;
        }
        if (key.isBlank() || key.length() > MAX_KEY_LENGTH) {
            request.abortWith(IcebergErrors.response(
                            400,
                            "BadRequestException",
                            "Invalid Idempotency-Key: empty or over " + MAX_KEY_LENGTH + " characters")
                    .build());
            return;
        }
        byte[] body;
        try (InputStream in = request.getEntityStream()) {
            body = in.readAllBytes();
        }
        request.setEntityStream(new ByteArrayInputStream(body));
        URI uri = request.getUriInfo().getRequestUri();
        String fingerprint = fingerprint(method, uri.getRawPath(), uri.getRawQuery(), body);

        while (true) {
            IdempotencyKeys.Claim claim = keys.claim(key, fingerprint);
            IdempotencyKeys.Entry entry = claim.entry();
            if (!entry.fingerprint.equals(fingerprint)) {
                request.abortWith(differentRequest(key));
                return;
            }
            if (claim.first()) {
                if (!answeredFromRecord(request, key, fingerprint, body, entry)) {
                    request.setProperty(ENTRY, entry);
                    request.setProperty(
                            ATTACHED, records.attach(key, fingerprint, entry.firstSeen, IdempotentReplays::outcome));
                }
                return;
            }
            IdempotencyKeys.Stored stored = await(entry);
            if (stored == null) {
                // The first request ended in a 5xx, which is not final: this one runs (or waits again).
                keys.forget(entry);
                continue;
            }
            request.abortWith(replay(stored));
            return;
        }
    }

    /**
     * Answers a key the memory does not know from its durable record, if it has one (the server restarted since the
     * request committed): 422 for another request, else the first one's answer, rebuilt. Answers whether it did;
     * the claimed entry is finished either way (or released, so its waiters look again).
     */
    private boolean answeredFromRecord(
            ContainerRequestContext request, String key, String fingerprint, byte[] body, IdempotencyKeys.Entry entry) {
        Optional<IdempotencyRecords.Found> found;
        IdempotencyKeys.Stored stored;
        try {
            found = records.find(key);
            if (found.isEmpty()) {
                return false;
            }
            if (!found.get().fingerprint().equals(fingerprint)) {
                keys.finish(entry, null);
                request.abortWith(differentRequest(key));
                return true;
            }
            List<PathSegment> segments = request.getUriInfo().getPathSegments(true);
            List<String> route = segments.stream()
                    .skip(2) // v1, the prefix
                    .map(PathSegment::getPath)
                    .toList();
            String catalog = IcebergResource.catalog(segments.get(1).getPath());
            stored = replays.answer(
                    request.getMethod(), route, catalog, new String(body, StandardCharsets.UTF_8), found.get());
        } catch (RuntimeException e) {
            keys.finish(entry, null);
            throw e;
        }
        if (stored == null) {
            LOG.warn("Idempotency-Key {} has a record, but its route keeps no answer; running the request", key);
            keys.finish(entry, null);
            return false;
        }
        keys.finish(entry, stored);
        request.abortWith(replay(stored));
        return true;
    }

    private static Response differentRequest(String key) {
        return IcebergErrors.response(
                        422,
                        "UnprocessableEntityException",
                        "Idempotency-Key " + key + " was already used for a different request")
                .build();
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(ATTACHED) instanceof TransactionRunner.Attached attached) {
            attached.close();
            if (attached.committed()) {
                // Records only grow by keyed commits, so collecting after one (at most once a minute) bounds them,
                // and a request that changed nothing never commits a collection either.
                records.collectIfDue();
            }
        }
        if (!(request.getProperty(ENTRY) instanceof IdempotencyKeys.Entry entry) || entry.response.isDone()) {
            return;
        }
        if (response.getStatus() >= 500) {
            keys.finish(entry, null);
            return;
        }
        Object body = response.getEntity();
        keys.finish(
                entry,
                new IdempotencyKeys.Stored(
                        response.getStatus(),
                        response.getHeaderString(HttpHeaders.CONTENT_TYPE),
                        response.getHeaderString(HttpHeaders.ETAG),
                        stored(body)));
    }

    /** The answer's body as it is replayed: the routes answer bytes ({@code IcebergBodies.ok}), text or a table body. */
    private static EncodedBody stored(Object body) {
        if (body == null) {
            return null;
        }
        if (body instanceof EncodedBody.Entity encoded) {
            return encoded.body();
        }
        return body instanceof byte[] json ? EncodedBody.of(json) : EncodedBody.of(body.toString());
    }

    private static Response replay(IdempotencyKeys.Stored stored) {
        Response.ResponseBuilder builder = Response.status(stored.status());
        if (stored.body() != null) {
            // Plain: the server's gzip handler compresses a replay for a client that takes it.
            builder.entity(stored.body().plain());
        }
        if (stored.contentType() != null) {
            builder.header(HttpHeaders.CONTENT_TYPE, stored.contentType());
        }
        if (stored.etag() != null) {
            builder.header(HttpHeaders.ETAG, stored.etag());
        }
        return builder.build();
    }

    private static IdempotencyKeys.Stored await(IdempotencyKeys.Entry entry) {
        try {
            return entry.response.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IdempotencyInProgressException();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdempotencyInProgressException();
        } catch (ExecutionException e) {
            return null;
        }
    }

    private static String fingerprint(String method, String path, String query, byte[] body) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(
                    (method + ' ' + path + '?' + (query == null ? "" : query) + '\n').getBytes(StandardCharsets.UTF_8));
            digest.update(body);
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from the JDK", e);
        }
    }

    /** A repeat waited too long for the first request with its key: 503, which Iceberg clients retry. */
    static final class IdempotencyInProgressException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        IdempotencyInProgressException() {
            super("A request with this Idempotency-Key is still in progress, retry later");
        }
    }
}
