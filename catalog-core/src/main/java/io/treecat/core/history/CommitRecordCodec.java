package io.treecat.core.history;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.PathKeys;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of a commit record (docs/storage.md, "Commit log"): a format byte, then
 * big-endian fields; strings and paths are an int length and bytes (-1 for a null principal), and
 * paths use the key encoding of {@link PathKeys#pathKey}.
 *
 * <pre>
 * format:1 | vid:8 | time_ms:8 | principal | interface | operation | flags:1 (bit 0: compact)
 *          | added:4 | updated:4 | removed:4
 *          | full:    count:4, then per path: change:1 | object_kind:1 | path
 *          | compact: count:4, then per prefix: path
 *          | format 2 only: request_id
 * </pre>
 *
 * <p>Format 2 adds the request id of a commit a replica forwarded ({@link CommitOrigin#requestId}); a record
 * without one is written in format 1, which every version reads.
 */
public final class CommitRecordCodec {
    static final int FORMAT = 1;
    /** Format 1 and the request id of a forwarded commit. */
    static final int FORMAT_WITH_REQUEST_ID = 2;

    private static final int COMPACT = 1;

    private CommitRecordCodec() {}

    public static byte[] key(long vid) {
        byte[] key = new byte[8];
        PathKeys.writeLong(key, 0, vid);
        return key;
    }

    public static long vidOfKey(byte[] key) {
        return PathKeys.readLong(key, 0);
    }

    public static byte[] encode(CommitRecord record) {
        List<byte[]> parts = new ArrayList<>();
        int size = 1 + 8 + 8 + 1 + 12 + 4;
        byte[] principal = record.origin().principal() == null
                ? null
                : utf8(record.origin().principal());
        byte[] iface = utf8(record.origin().interfaceName());
        byte[] operation = utf8(record.origin().operation());
        byte[] requestId = record.origin().requestId() == null
                ? null
                : utf8(record.origin().requestId());
        size += 4 + (principal == null ? 0 : principal.length) + 4 + iface.length + 4 + operation.length;
        if (requestId != null) {
            size += 4 + requestId.length;
        }
        if (record.compact()) {
            for (ObjectPath prefix : record.prefixes()) {
                byte[] path = PathKeys.pathKey(prefix);
                parts.add(path);
                size += 4 + path.length;
            }
        } else {
            for (PathChange change : record.changes()) {
                byte[] path = PathKeys.pathKey(change.path());
                parts.add(path);
                size += 2 + 4 + path.length;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put((byte) (requestId == null ? FORMAT : FORMAT_WITH_REQUEST_ID))
                .putLong(record.vid())
                .putLong(record.commitTimeMillis());
        putBytes(out, principal);
        putBytes(out, iface);
        putBytes(out, operation);
        out.put((byte) (record.compact() ? COMPACT : 0));
        out.putInt(record.added()).putInt(record.updated()).putInt(record.removed());
        out.putInt(parts.size());
        for (int i = 0; i < parts.size(); i++) {
            if (!record.compact()) {
                PathChange change = record.changes().get(i);
                out.put((byte) change.change().code());
                out.put((byte) (change.objectKind() == ObjectKind.INNER ? 1 : 2));
            }
            putBytes(out, parts.get(i));
        }
        if (requestId != null) {
            putBytes(out, requestId);
        }
        return out.array();
    }

    public static CommitRecord decode(byte[] bytes) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            int format = in.get();
            if (format != FORMAT && format != FORMAT_WITH_REQUEST_ID) {
                throw new CatalogException(ErrorCode.UNSUPPORTED_STORAGE_FORMAT, "Unsupported commit record format")
                        .with("found", format)
                        .with("supported", FORMAT_WITH_REQUEST_ID);
            }
            long vid = in.getLong();
            long time = in.getLong();
            byte[] principal = getBytes(in);
            String iface = new String(getBytes(in), StandardCharsets.UTF_8);
            String operation = new String(getBytes(in), StandardCharsets.UTF_8);
            boolean compact = (in.get() & COMPACT) != 0;
            int added = in.getInt();
            int updated = in.getInt();
            int removed = in.getInt();
            int count = in.getInt();
            if (count < 0 || count > in.remaining()) {
                throw new IllegalArgumentException("bad path count " + count);
            }
            List<PathChange> changes = new ArrayList<>(compact ? 0 : count);
            List<ObjectPath> prefixes = new ArrayList<>(compact ? count : 0);
            for (int i = 0; i < count; i++) {
                if (compact) {
                    prefixes.add(PathKeys.decodePath(getBytes(in)));
                } else {
                    ChangeKind change = ChangeKind.fromCode(in.get());
                    ObjectKind kind = in.get() == 1 ? ObjectKind.INNER : ObjectKind.LEAF;
                    changes.add(new PathChange(PathKeys.decodePath(getBytes(in)), change, kind));
                }
            }
            String requestId = null;
            if (format == FORMAT_WITH_REQUEST_ID) {
                byte[] id = getBytes(in);
                if (id == null) {
                    throw new IllegalArgumentException("a format 2 record without its request id");
                }
                requestId = new String(id, StandardCharsets.UTF_8);
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " trailing bytes");
            }
            CommitOrigin origin = new CommitOrigin(
                    principal == null ? null : new String(principal, StandardCharsets.UTF_8),
                    iface,
                    operation,
                    requestId);
            return new CommitRecord(vid, time, origin, compact, added, updated, removed, changes, prefixes);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new CatalogException(ErrorCode.STORAGE_CORRUPTION, "A commit record cannot be decoded", e)
                    .with("length", bytes.length);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void putBytes(ByteBuffer out, byte[] bytes) {
        if (bytes == null) {
            out.putInt(-1);
        } else {
            out.putInt(bytes.length).put(bytes);
        }
    }

    private static byte[] getBytes(ByteBuffer in) {
        int length = in.getInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("bad length " + length);
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }
}
