package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

/**
 * A request that is malformed on the wire (a missing field, an enum value this server does not
 * know, a negative count) before core ever sees it. Core's own codes cover bad paths, values and
 * queries; this covers the rest, and names the field so the caller knows what to fix.
 */
public final class InvalidRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidRequestException(String field, String problem) {
        super("Invalid request: " + requireNonNull(field, "field is null") + " "
                + requireNonNull(problem, "problem is null"));
        this.field = field;
    }

    /** The request field at fault, in proto field-path form, e.g. {@code writes[2].add.kind}. */
    public String field() {
        return field;
    }
}
