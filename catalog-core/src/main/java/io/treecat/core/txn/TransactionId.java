package io.treecat.core.txn;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.UUID;

/** A transaction session's id, as clients pass it back. */
public record TransactionId(UUID uuid) {
    public TransactionId {
        requireNonNull(uuid, "uuid is null");
    }

    /**
     * One generator per thread. {@code UUID.randomUUID()} draws from one shared {@code SecureRandom}
     * whose lock every transaction of the server queued on, each load's read transaction included;
     * under load, a thread preempted while holding it stalled all the others. The ids stay
     * unguessable (a client passes its id back to continue its transaction).
     */
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(TransactionId::newGenerator);

    public static TransactionId create() {
        byte[] bytes = new byte[16];
        RANDOM.get().nextBytes(bytes);
        // A version 4 (random) UUID, IETF variant, as UUID.randomUUID makes.
        bytes[6] = (byte) ((bytes[6] & 0x0f) | 0x40);
        bytes[8] = (byte) ((bytes[8] & 0x3f) | 0x80);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new TransactionId(new UUID(buffer.getLong(), buffer.getLong()));
    }

    private static SecureRandom newGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
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
