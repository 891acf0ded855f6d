package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

/**
 * Who asks. Until authentication exists every caller is {@link #ANONYMOUS}; the adapters already
 * pass one per call, so authentication only has to fill it in.
 */
public record Principal(String name) {
    public static final Principal ANONYMOUS = new Principal("anonymous");
    /** The server itself, for background work another principal's operation asked for (a purge after a drop). */
    public static final Principal SYSTEM = new Principal("treecat-system");

    public Principal {
        requireNonNull(name, "name is null");
    }
}
