package io.treecat.core.storage;

import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectPath;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Byte encodings of paths and versioned keys. Byte order of the encodings equals the logical order
 * of what they encode, so RocksDB's default bytewise comparator carries the tree's order.
 *
 * <table>
 *   <caption>Key layout</caption>
 *   <tr><th>encoding</th><th>bytes</th></tr>
 *   <tr><td>pathKey(/id1/../idn)</td><td>depth n as one unsigned byte, then {@link IdOrder#encode}(id1) .. encode(idn)</td></tr>
 *   <tr><td>childrenPrefix(p)</td><td>depth(p)+1 as one byte, then encode(id1) .. encode(id_depth(p)): every child's pathKey starts with it</td></tr>
 *   <tr><td>versionedKey(p, vid)</td><td>pathKey(p), then (Long.MAX_VALUE - vid) as 8 bytes big-endian: newest version first</td></tr>
 * </table>
 *
 * <p>Because depth comes first, all objects of one depth are contiguous and the children of one
 * parent form one contiguous range: listing them is one seek to {@link #childrenPrefix} plus a scan
 * bounded by {@link #prefixEnd}.
 */
public final class PathKeys {
    public static final int VID_BYTES = 8;

    private PathKeys() {}

    public static byte[] pathKey(ObjectPath path) {
        List<String> ids = path.ids();
        byte[][] escaped = new byte[ids.size()][];
        int length = 1;
        for (int i = 0; i < escaped.length; i++) {
            escaped[i] = IdOrder.encodeUnterminated(ids.get(i));
            length += escaped[i].length + 1;
        }
        byte[] key = new byte[length];
        key[0] = (byte) ids.size();
        int at = 1;
        for (byte[] id : escaped) {
            System.arraycopy(id, 0, key, at, id.length);
            at += id.length;
            key[at++] = IdOrder.TERMINATOR;
        }
        return key;
    }

    public static byte[] childrenPrefix(ObjectPath parent) {
        byte[] parentKey = pathKey(parent);
        parentKey[0] = (byte) (parent.depth() + 1);
        return parentKey;
    }

    /** The smallest key greater than every key that starts with {@code prefix}. */
    public static byte[] prefixEnd(byte[] prefix) {
        // Whatever follows a prefix inside a key is an encoded id (never contains 0xFF) or an inverted
        // vid (a non-negative long, so its first byte is at most 0x7F): prefix + 0xFF is past all of them.
        byte[] end = Arrays.copyOf(prefix, prefix.length + 1);
        end[prefix.length] = IdOrder.AFTER_ALL;
        return end;
    }

    public static byte[] concat(byte[] first, byte[] second) {
        byte[] result = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, result, first.length, second.length);
        return result;
    }

    public static byte[] versionedKey(ObjectPath path, long vid) {
        return versionedKey(pathKey(path), vid);
    }

    public static byte[] versionedKey(byte[] pathKey, long vid) {
        byte[] key = Arrays.copyOf(pathKey, pathKey.length + VID_BYTES);
        writeLong(key, pathKey.length, Long.MAX_VALUE - vid);
        return key;
    }

    /** The vid at the end of a versioned key. */
    public static long vidOfVersionedKey(byte[] key) {
        return Long.MAX_VALUE - readLong(key, key.length - VID_BYTES);
    }

    /** True when {@code key} is a versioned key of the path whose pathKey is given. */
    public static boolean isVersionOf(byte[] key, byte[] pathKey) {
        return key.length == pathKey.length + VID_BYTES
                && Arrays.equals(key, 0, pathKey.length, pathKey, 0, pathKey.length);
    }

    public static ObjectPath decodePath(byte[] key, int length) {
        int depth = key[0] & 0xFF;
        List<String> ids = new ArrayList<>(depth);
        int offset = 1;
        for (int i = 0; i < depth; i++) {
            if (offset >= length) {
                throw new IllegalArgumentException("key ends before id " + (i + 1) + " of " + depth);
            }
            ids.add(IdOrder.decode(key, offset));
            offset += IdOrder.encodedLength(key, offset);
        }
        return new ObjectPath(ids);
    }

    public static ObjectPath decodePath(byte[] pathKey) {
        return decodePath(pathKey, pathKey.length);
    }

    /** Decodes the last id of a child key, given the length of its parent's {@link #childrenPrefix}. */
    public static String decodeChildId(byte[] key, int prefixLength) {
        return IdOrder.decode(key, prefixLength);
    }

    public static void writeLong(byte[] bytes, int offset, long value) {
        for (int i = 7; i >= 0; i--) {
            bytes[offset + i] = (byte) value;
            value >>>= 8;
        }
    }

    public static long readLong(byte[] bytes, int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[offset + i] & 0xFF);
        }
        return value;
    }
}
