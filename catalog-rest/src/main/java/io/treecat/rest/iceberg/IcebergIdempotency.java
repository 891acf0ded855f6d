package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.HttpHeaders;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.rest.RESTUtil;

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
 * <p>Keys live in memory ({@link IdempotencyKeys}), bounded: a restart forgets them.
 */
final class IcebergIdempotency implements ContainerRequestFilter, ContainerResponseFilter {
    static final Duration LIFETIME = Duration.ofMinutes(30);
    static final int DEFAULT_MAX_ENTRIES = 10_000;
    /** How long a repeat waits for the first request with its key; then 503, and the client retries. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final int MAX_KEY_LENGTH = 128;
    private static final String ENTRY = IcebergIdempotency.class.getName() + ".entry";

    private final IdempotencyKeys keys;

    IcebergIdempotency(IdempotencyKeys keys) {
        this.keys = requireNonNull(keys, "keys is null");
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
                request.abortWith(IcebergErrors.response(
                                422,
                                "UnprocessableEntityException",
                                "Idempotency-Key " + key + " was already used for a different request")
                        .build());
                return;
            }
            if (claim.first()) {
                request.setProperty(ENTRY, entry);
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

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
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
                        body == null ? null : body.toString()));
    }

    private static Response replay(IdempotencyKeys.Stored stored) {
        Response.ResponseBuilder builder = Response.status(stored.status());
        if (stored.body() != null) {
            builder.entity(stored.body());
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
