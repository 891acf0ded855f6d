package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.Optional;

/**
 * Where a commit came from: the interface and operation that made it (e.g. {@code rest} and {@code
 * commitTable}, {@code load} and {@code chunk}) and, once authentication exists, the principal.
 * Adapters set it; the core only stores it in the commit log.
 *
 * @param principal who committed, or null while there is no authentication
 */
public record CommitOrigin(String principal, String interfaceName, String operation) {
    /** The longest principal, interface or operation name, in characters. */
    public static final int MAX_NAME_LENGTH = 128;

    /** A commit through the native API, the default when an adapter says nothing. */
    public static final CommitOrigin NATIVE = new CommitOrigin(null, "native", "commit");

    /** A clone of a subtree through the native API (JSON or gRPC). */
    public static final CommitOrigin NATIVE_CLONE = new CommitOrigin(null, "native", "clone");

    /** One chunk of a bulk load. */
    public static final CommitOrigin LOAD_CHUNK = new CommitOrigin(null, "load", "chunk");

    public CommitOrigin {
        checkName("interface", requireNonNull(interfaceName, "interfaceName is null"));
        checkName("operation", requireNonNull(operation, "operation is null"));
        if (principal != null) {
            checkName("principal", principal);
        }
    }

    public static CommitOrigin of(String interfaceName, String operation) {
        return new CommitOrigin(null, interfaceName, operation);
    }

    public CommitOrigin withPrincipal(String name) {
        return new CommitOrigin(name, interfaceName, operation);
    }

    public Optional<String> principalName() {
        return Optional.ofNullable(principal);
    }

    /** {@code interface.operation}, as printed by {@code treecat log}. */
    public String qualifiedOperation() {
        return interfaceName + "." + operation;
    }

    private static void checkName(String what, String value) {
        if (value.isEmpty() || value.length() > MAX_NAME_LENGTH) {
            throw new CatalogException(
                            ErrorCode.INVALID_REQUEST,
                            "A commit origin's " + what + " must have 1 to " + MAX_NAME_LENGTH + " characters")
                    .with("field", what)
                    .with("length", value.length());
        }
    }
}
