package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.Optional;

/**
 * Where a commit came from: the interface and operation that made it (e.g. {@code rest} and {@code
 * commitTable}, {@code load} and {@code chunk}), once authentication exists the principal, and for a
 * commit a replica forwarded to the group's leader the id of that request. Adapters set the first
 * three; the core stores all of it in the commit log.
 *
 * @param principal who committed, or null while there is no authentication
 * @param requestId the id a replica gave the commit it forwarded, the same on every re-send, or null: a
 *     leader finds a re-sent commit that already committed by it in the commit log, instead of committing
 *     it twice (docs/replication.md, "Forwarded commits")
 */
public record CommitOrigin(String principal, String interfaceName, String operation, String requestId) {
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
        if (requestId != null) {
            checkName("request id", requestId);
        }
    }

    public CommitOrigin(String principal, String interfaceName, String operation) {
        this(principal, interfaceName, operation, null);
    }

    public static CommitOrigin of(String interfaceName, String operation) {
        return new CommitOrigin(null, interfaceName, operation);
    }

    public CommitOrigin withPrincipal(String name) {
        return new CommitOrigin(name, interfaceName, operation, requestId);
    }

    public CommitOrigin withRequestId(String id) {
        return new CommitOrigin(principal, interfaceName, operation, id);
    }

    /** Whether this origin names the same interface and operation as {@code other}, whoever committed. */
    public boolean sameOperation(CommitOrigin other) {
        return interfaceName.equals(other.interfaceName) && operation.equals(other.operation);
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
