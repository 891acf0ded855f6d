package io.treecat.core.version;

import io.treecat.core.storage.PathKeys;
import java.util.Arrays;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Value layouts of the three object key spaces. All numbers are 8-byte big-endian.
 *
 * <pre>
 * INNER_CURRENT  pathKey                 -> flags(1) vid(8) previousVid(8) bson?
 * INNER_HISTORY  pathKey + ~startVid     -> flags(1) endVid(8) bson?
 * LEAF           pathKey + ~createVid    -> flags(1) tombstoneVid(8) (bson | primary leaf key)
 * </pre>
 *
 * <p>{@code flags} bit 0 marks a removed inner version (no BSON follows) or, in a leaf, a reference
 * to the primary copy of a shared leaf. {@code previousVid} is -1 for the first version; a live
 * leaf's {@code tombstoneVid} is {@link Long#MAX_VALUE}.
 */
final class Records {
    static final byte REMOVED = 1;
    static final byte REFERENCE = 1;
    static final int INNER_CURRENT_HEADER = 17;
    static final int HEADER = 9;
    static final long NONE = -1;
    static final long ALIVE = Long.MAX_VALUE;
    /** BSON's own limit for one document. */
    static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private Records() {}

    static byte[] bson(BsonDocument document) {
        if (document instanceof RawBsonDocument raw) {
            return Arrays.copyOfRange(
                    raw.getByteBuffer().array(),
                    raw.getByteBuffer().position(),
                    raw.getByteBuffer().limit());
        }
        RawBsonDocument raw = new RawBsonDocument(document, CODEC);
        return Arrays.copyOf(raw.getByteBuffer().array(), raw.getByteBuffer().remaining());
    }

    static byte[] innerCurrent(long vid, long previousVid, byte[] bson) {
        byte[] record = new byte[INNER_CURRENT_HEADER + (bson == null ? 0 : bson.length)];
        record[0] = bson == null ? REMOVED : 0;
        PathKeys.writeLong(record, 1, vid);
        PathKeys.writeLong(record, 9, previousVid);
        if (bson != null) {
            System.arraycopy(bson, 0, record, INNER_CURRENT_HEADER, bson.length);
        }
        return record;
    }

    static boolean innerCurrentRemoved(byte[] record) {
        return (record[0] & REMOVED) != 0;
    }

    static long innerCurrentVid(byte[] record) {
        return PathKeys.readLong(record, 1);
    }

    /** The history record that preserves a current record once a newer version replaces it at {@code endVid}. */
    static byte[] historyFromCurrent(byte[] current, long endVid) {
        byte[] record = new byte[HEADER + current.length - INNER_CURRENT_HEADER];
        record[0] = current[0];
        PathKeys.writeLong(record, 1, endVid);
        System.arraycopy(current, INNER_CURRENT_HEADER, record, HEADER, current.length - INNER_CURRENT_HEADER);
        return record;
    }

    static boolean historyRemoved(byte[] record) {
        return (record[0] & REMOVED) != 0;
    }

    static long historyEndVid(byte[] record) {
        return PathKeys.readLong(record, 1);
    }

    static byte[] leaf(long tombstoneVid, byte[] bsonOrReference, boolean reference) {
        byte[] record = new byte[HEADER + bsonOrReference.length];
        record[0] = reference ? REFERENCE : 0;
        PathKeys.writeLong(record, 1, tombstoneVid);
        System.arraycopy(bsonOrReference, 0, record, HEADER, bsonOrReference.length);
        return record;
    }

    static byte[] withTombstone(byte[] leafRecord, long tombstoneVid) {
        byte[] record = leafRecord.clone();
        PathKeys.writeLong(record, 1, tombstoneVid);
        return record;
    }

    static boolean leafIsReference(byte[] record) {
        return (record[0] & REFERENCE) != 0;
    }

    static long leafTombstoneVid(byte[] record) {
        return PathKeys.readLong(record, 1);
    }

    static byte[] leafReference(byte[] record) {
        return Arrays.copyOfRange(record, HEADER, record.length);
    }

    /** A lazily parsed view of the BSON stored after {@code offset}; nothing is copied. */
    static RawBsonDocument document(byte[] record, int offset) {
        return new RawBsonDocument(record, offset, record.length - offset);
    }
}
