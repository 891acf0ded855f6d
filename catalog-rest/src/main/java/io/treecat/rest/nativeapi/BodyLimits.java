package io.treecat.rest.nativeapi;

/**
 * How large a request body may be. Bodies are read as they arrive and refused with 413 as soon as
 * they pass the limit, so an oversized request never sits in memory whole.
 *
 * @param maxRequestBytes every request except bulk loads (write sets, transaction and snapshot bodies)
 * @param maxLoadBytes a bulk load, which streams its JSON lines into chunked commits
 */
public record BodyLimits(long maxRequestBytes, long maxLoadBytes) {
    public BodyLimits {
        if (maxRequestBytes <= 0 || maxLoadBytes <= 0) {
            throw new IllegalArgumentException("body limits must be positive");
        }
    }
}
