package io.treecat.core.replication;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvOp;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A commit as the leader ships it to every node: its vid and the store writes that install it, exactly
 * as the leader prepared them (tree records, the vid counter, the commit log record). Followers do not
 * run the commit builder again; they replay these writes, so every node holds the same bytes at every
 * vid.
 *
 * <p>Encoding, version 1: the byte {@code 'T'}, the byte 1, the vid (8 bytes, big-endian), the number
 * of writes (4 bytes), then per write its kind and key space (one byte each: {@link KvOp.Kind} and
 * {@link KeySpace} ordinals, which is why both enums only ever grow at the end), the key and, except for
 * a delete, the value, each as a 4-byte length and the bytes. An entry of the group's log holds one or
 * more commits at consecutive vids, encoded back to back ({@link #encodeAll}, {@link #decodeAll}): a
 * group commit.
 */
public record ReplicatedCommit(long vid, List<KvOp> ops) {
    private static final byte MAGIC = 'T';
    private static final byte VERSION = 1;

    public ReplicatedCommit {
        requireNonNull(ops, "ops is null");
        ops = List.copyOf(ops);
    }

    public byte[] encode() {
        return encodeAll(List.of(this));
    }

    /** Encodes the commits of one log entry, which must be at consecutive vids. */
    @SuppressWarnings("EnumOrdinal") // the ordinals are the format, documented above
    public static byte[] encodeAll(List<ReplicatedCommit> commits) {
        if (commits.isEmpty()) {
            throw new IllegalArgumentException("an entry holds at least one commit");
        }
        for (int i = 1; i < commits.size(); i++) {
            if (commits.get(i).vid() != commits.get(i - 1).vid() + 1) {
                throw new IllegalArgumentException("the commits of an entry must be at consecutive vids");
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * commits.size()
                + 64 * commits.stream().mapToInt(c -> c.ops().size()).sum());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (ReplicatedCommit commit : commits) {
                commit.writeTo(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    @SuppressWarnings("EnumOrdinal") // the ordinals are the format, documented above
    private void writeTo(DataOutputStream out) throws IOException {
        out.writeByte(MAGIC);
        out.writeByte(VERSION);
        out.writeLong(vid);
        out.writeInt(ops.size());
        for (KvOp op : ops) {
            out.writeByte(op.kind().ordinal());
            out.writeByte(op.space().ordinal());
            out.writeInt(op.key().length);
            out.write(op.key());
            if (op.kind() != KvOp.Kind.DELETE) {
                out.writeInt(op.value().length);
                out.write(op.value());
            }
        }
    }

    /**
     * Decodes an entry written by {@link #encode}.
     *
     * @throws CatalogException {@code STORAGE_CORRUPTION} naming what is wrong and where, for bytes that
     *     are not such an entry (a corrupt log must stop the node, never be half applied)
     */
    public static ReplicatedCommit decode(ByteBuffer bytes) {
        List<ReplicatedCommit> commits = decodeAll(bytes);
        if (commits.size() != 1) {
            throw corrupt(commits.size() + " commits where one was expected", 0);
        }
        return commits.get(0);
    }

    /**
     * Decodes an entry written by {@link #encodeAll}: its commits, in vid order.
     *
     * @throws CatalogException {@code STORAGE_CORRUPTION} naming what is wrong and where, for bytes that
     *     are not such an entry
     */
    public static List<ReplicatedCommit> decodeAll(ByteBuffer bytes) {
        ByteBuffer in = bytes.duplicate();
        List<ReplicatedCommit> commits = new ArrayList<>();
        do {
            ReplicatedCommit commit = decodeOne(in);
            if (!commits.isEmpty()
                    && commit.vid() != commits.get(commits.size() - 1).vid() + 1) {
                throw corrupt(
                        "commit of vid " + commit.vid() + " after vid "
                                + commits.get(commits.size() - 1).vid(),
                        in.position());
            }
            commits.add(commit);
        } while (in.hasRemaining());
        return commits;
    }

    private static ReplicatedCommit decodeOne(ByteBuffer in) {
        try {
            byte magic = in.get();
            byte version = in.get();
            if (magic != MAGIC || version != VERSION) {
                throw corrupt("unknown header " + magic + "/" + version, in.position() - 2);
            }
            long vid = in.getLong();
            int count = in.getInt();
            if (count < 0 || count > in.remaining() / 6) {
                throw corrupt("impossible write count " + count, in.position() - 4); // each write takes 6 bytes or more
            }
            List<KvOp> ops = new ArrayList<>(count);
            KvOp.Kind[] kinds = KvOp.Kind.values();
            KeySpace[] spaces = KeySpace.values();
            for (int i = 0; i < count; i++) {
                int at = in.position();
                int kind = in.get();
                int space = in.get();
                if (kind < 0 || kind >= kinds.length || space < 0 || space >= spaces.length) {
                    throw corrupt("write " + i + " has unknown kind " + kind + " or key space " + space, at);
                }
                byte[] key = chunk(in);
                byte[] value = kinds[kind] == KvOp.Kind.DELETE ? null : chunk(in);
                ops.add(new KvOp(kinds[kind], spaces[space], key, value));
            }
            return new ReplicatedCommit(vid, ops);
        } catch (BufferUnderflowException e) {
            throw corrupt("the entry ends early", in.position());
        }
    }

    private static byte[] chunk(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw corrupt("a length of " + length + " with " + in.remaining() + " bytes left", in.position() - 4);
        }
        byte[] chunk = new byte[length];
        in.get(chunk);
        return chunk;
    }

    private static CatalogException corrupt(String what, int offset) {
        return new CatalogException(ErrorCode.STORAGE_CORRUPTION, "A replicated commit entry is corrupt: " + what)
                .with("offset", offset);
    }
}
