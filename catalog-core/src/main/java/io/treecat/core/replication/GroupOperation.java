package io.treecat.core.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A change to a replicated tree that is not a commit, as an entry of the group's log: naming a vid
 * ({@link Kind#CREATE_SNAPSHOT}), dropping a name ({@link Kind#DROP_SNAPSHOT}), or agreeing how far
 * every node may collect old versions ({@link Kind#AGREE_HORIZON}). Unlike a commit it is not validated
 * by the leader before it enters the log: every node checks it against its own store when its turn
 * comes ({@link io.treecat.core.version.VersionedTree#applyOperation}). All nodes apply the same log in
 * the same order, so all of them accept or refuse it alike.
 *
 * <p>Encoding, version 1: the byte {@code 'G'} (a commit entry starts with {@code 'T'}), the byte 1, the
 * kind's ordinal (one byte; the enum only grows at the end), the vid (8 bytes, big-endian; the horizon
 * for {@code AGREE_HORIZON}), then the name as a 4-byte length and its UTF-8 (empty for a horizon).
 *
 * @param vid the vid a snapshot names, or the agreed horizon; unused (0) for a drop
 */
public record GroupOperation(Kind kind, String name, long vid) {
    private static final byte MAGIC = 'G';
    private static final byte VERSION = 1;
    /** Longer than any valid snapshot name in UTF-8; a longer one is a corrupt entry. */
    private static final int MAX_NAME_BYTES = 4096;

    public enum Kind {
        CREATE_SNAPSHOT,
        DROP_SNAPSHOT,
        AGREE_HORIZON
    }

    public GroupOperation {
        requireNonNull(kind, "kind is null");
        requireNonNull(name, "name is null");
    }

    public static GroupOperation createSnapshot(String name, long vid) {
        return new GroupOperation(Kind.CREATE_SNAPSHOT, name, vid);
    }

    public static GroupOperation dropSnapshot(String name) {
        return new GroupOperation(Kind.DROP_SNAPSHOT, name, 0);
    }

    public static GroupOperation agreeHorizon(long horizon) {
        return new GroupOperation(Kind.AGREE_HORIZON, "", horizon);
    }

    /** Whether a log entry's data is an operation (and not commits). */
    public static boolean isOperation(ByteBuffer entry) {
        return entry.remaining() > 0 && entry.get(entry.position()) == MAGIC;
    }

    @SuppressWarnings("EnumOrdinal") // the ordinal is the format, documented above
    public byte[] encode() {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 1 + 8 + 4 + utf8.length)
                .put(MAGIC)
                .put(VERSION)
                .put((byte) kind.ordinal())
                .putLong(vid)
                .putInt(utf8.length)
                .put(utf8)
                .array();
    }

    public static GroupOperation decode(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate();
        try {
            byte magic = in.get();
            byte version = in.get();
            if (magic != MAGIC || version != VERSION) {
                throw corrupt("unknown header " + magic + "/" + version, in.position() - 2);
            }
            int kind = in.get();
            Kind[] kinds = Kind.values();
            if (kind < 0 || kind >= kinds.length) {
                throw corrupt("unknown kind " + kind, in.position() - 1);
            }
            long vid = in.getLong();
            int length = in.getInt();
            if (length < 0 || length > MAX_NAME_BYTES || length != in.remaining()) {
                throw corrupt("a name of " + length + " bytes with " + in.remaining() + " left", in.position() - 4);
            }
            byte[] name = new byte[length];
            in.get(name);
            return new GroupOperation(kinds[kind], new String(name, StandardCharsets.UTF_8), vid);
        } catch (BufferUnderflowException e) {
            throw corrupt("the entry ends early", in.position());
        }
    }

    private static CatalogException corrupt(String what, int offset) {
        return new CatalogException(ErrorCode.STORAGE_CORRUPTION, "A replicated operation entry is corrupt: " + what)
                .with("offset", offset);
    }
}
