package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How large a request body may be, and how long it may stall. Bodies are read as they arrive and
 * refused with 413 as soon as they pass the size limit, so an oversized request never sits in memory
 * whole; a body that stops arriving for {@code readTimeout} is answered 408.
 *
 * @param maxRequestBytes every request except bulk loads (write sets, transaction and snapshot bodies)
 * @param maxLoadBytes a bulk load, which streams its JSON lines into chunked commits
 * @param readTimeout how long a request may go without its body (or its answer) moving; the server
 *     applies it to the HTTP listener, this names it in the 408
 */
public record BodyLimits(long maxRequestBytes, long maxLoadBytes, Duration readTimeout) {
    /** The default read timeout: Jetty's own idle timeout. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);

    public BodyLimits {
        if (maxRequestBytes <= 0 || maxLoadBytes <= 0) {
            throw new IllegalArgumentException("body limits must be positive");
        }
        requireNonNull(readTimeout, "readTimeout is null");
        if (readTimeout.isNegative() || readTimeout.isZero()) {
            throw new IllegalArgumentException("readTimeout must be positive");
        }
    }

    public BodyLimits(long maxRequestBytes, long maxLoadBytes) {
        this(maxRequestBytes, maxLoadBytes, DEFAULT_READ_TIMEOUT);
    }
}
