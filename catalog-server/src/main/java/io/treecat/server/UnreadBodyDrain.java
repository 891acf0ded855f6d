package io.treecat.server;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.EnumSet;

/**
 * Reads and discards what a request's handler left of its body, up to {@code http.max-request-size},
 * before the answer completes. An answer given before the body was read (a 404 for an unknown
 * resource, a 400 at the first wrong JSON type of a streamed body) otherwise leaves Jetty unable to
 * consume the rest: it closes the connection while the client is still sending, the client's write
 * fails ("broken pipe") and Java's HTTP client, among others, reports no answer at all instead of the
 * 4xx (found by the live protocol fuzzer, docs/robustness.md). Drained, the client finishes sending,
 * reads its 4xx, and the connection stays usable. A body that says it is over the limit by at most
 * {@link #OVER_LIMIT_SLACK} is drained too, so that its client reads the 413 rather than a reset (which
 * came or not by the timing of the close). A larger body, or one that stalls for {@code
 * http.read-timeout}, is left to Jetty, which closes the connection as before.
 */
final class UnreadBodyDrain implements Filter {
    /** How far past the limit a declared body is still read, to answer it: bounded work per refused request. */
    static final long OVER_LIMIT_SLACK = 1L << 20;

    private final long limitBytes;

    private UnreadBodyDrain(long limitBytes) {
        this.limitBytes = limitBytes;
    }

    static void install(Environment environment, long limitBytes) {
        environment
                .servlets()
                .addFilter("unread-body-drain", new UnreadBodyDrain(limitBytes))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        try {
            chain.doFilter(request, response);
        } finally {
            if (request instanceof HttpServletRequest http
                    && http.getContentLengthLong() <= limitBytes + OVER_LIMIT_SLACK) {
                drain(http, Math.max(limitBytes, http.getContentLengthLong()));
            }
        }
    }

    private static void drain(HttpServletRequest request, long maxBytes) {
        try {
            ServletInputStream body = request.getInputStream();
            if (body.isFinished()) {
                return;
            }
            byte[] discard = new byte[8192];
            long total = 0;
            int n;
            while (total <= maxBytes && (n = body.read(discard)) >= 0) {
                total += n;
            }
        } catch (IOException | IllegalStateException e) {
            // The body failed (it stalled, bad framing, bad gzip) or the handler took its reader: Jetty
            // closes the connection, as it would have.
        }
    }
}
