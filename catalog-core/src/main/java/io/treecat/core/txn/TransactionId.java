package io.treecat.core.txn;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.UUID;

/** A transaction session's id, as clients pass it back. */
public record TransactionId(UUID uuid) {
    public TransactionId {
        requireNonNull(uuid, "uuid is null");
    }

    public static TransactionId create() {
        return new TransactionId(UUID.randomUUID());
    }

    public static TransactionId valueOf(String text) {
        try {
            return new TransactionId(UUID.fromString(text));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new CatalogException(ErrorCode.INVALID_REQUEST, "Not a transaction id: '" + text + "'")
                    .with("transaction", text);
        }
    }

    @Override
    public String toString() {
        return uuid.toString();
    }
}
