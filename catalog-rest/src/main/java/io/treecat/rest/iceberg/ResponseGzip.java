package io.treecat.rest.iceberg;

/**
 * How the server gzips its answers (Dropwizard's {@code server.gzip}), for the bodies the Iceberg
 * routes compress themselves ({@link EncodedBody}): only where the server's handler would have.
 *
 * @param enabled whether answers are compressed at all
 * @param minimumBytes the smallest body that is
 */
public record ResponseGzip(boolean enabled, int minimumBytes) {
    /** Dropwizard's defaults: on, from 256 bytes. */
    public static final ResponseGzip DEFAULTS = new ResponseGzip(true, 256);

    public ResponseGzip {
        if (minimumBytes < 0) {
            throw new IllegalArgumentException("minimumBytes is negative: " + minimumBytes);
        }
    }
}
