package io.treecat.core.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The order of object ids, and the order-preserving byte encoding of one id that storage keys and
 * query bounds are built from.
 *
 * <p>Ids order by their UTF-8 bytes, unsigned, which is Unicode code point order. An encoded id is
 * its UTF-8 bytes with {@code 0x00} written as {@code 0x01 0x01} and {@code 0x01} as {@code 0x01
 * 0x02}, then a {@code 0x00} terminator. The terminator appears nowhere else, so the encoding is
 * prefix-free (the children of {@code /a} never mix with those of {@code /a\u0000}), and it sorts
 * below every data byte, so byte order of encodings equals id order. No encoded id contains {@code
 * 0xFF}, which makes {@code prefix + 0xFF} an exclusive upper bound for every key under a prefix.
 */
public final class IdOrder {
    public static final byte TERMINATOR = 0x00;
    private static final byte ESCAPE = 0x01;
    /** Sorts after every byte an encoded id can contain. */
    public static final byte AFTER_ALL = (byte) 0xFF;

    private IdOrder() {}

    public static int compare(String left, String right) {
        // UTF-16 compareTo differs from code point order only for surrogates; compare code points.
        int i = 0;
        int j = 0;
        while (i < left.length() && j < right.length()) {
            int a = left.codePointAt(i);
            int b = right.codePointAt(j);
            if (a != b) {
                return Integer.compare(a, b);
            }
            i += Character.charCount(a);
            j += Character.charCount(b);
        }
        return Integer.compare(left.length() - i, right.length() - j);
    }

    /** The id's length in UTF-8 bytes; a lone surrogate counts as the 3 bytes of its replacement. */
    public static int utf8Length(String id) {
        int length = wellFormedUtf8Length(id);
        return length >= 0 ? length : -length - 1;
    }

    /**
     * The id's length in UTF-8 bytes if it is well-formed UTF-16, else {@code -1 - length} (the length
     * counting each lone surrogate as 3 bytes): a lone surrogate has no UTF-8 form, and Java's encoder
     * writes {@code ?} for it, so two ids differing only in one would share a key.
     */
    public static int wellFormedUtf8Length(String id) {
        int length = 0;
        boolean wellFormed = true;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < 0x80) {
                length += 1;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < id.length()
                    && Character.isLowSurrogate(id.charAt(i + 1))) {
                length += 4;
                i++;
            } else {
                wellFormed &= !Character.isSurrogate(c);
                length += 3;
            }
        }
        return wellFormed ? length : -1 - length;
    }

    /** The id's escaped bytes followed by the terminator. */
    public static byte[] encode(String id) {
        byte[] escaped = encodeUnterminated(id);
        // The new byte after the escaped id is 0, the terminator.
        return Arrays.copyOf(escaped, escaped.length + 1);
    }

    /** The id's escaped bytes without the terminator: a prefix of the encoding of every id that starts with it. */
    public static byte[] encodeUnterminated(String id) {
        byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
        int escapes = 0;
        for (byte b : utf8) {
            if (b == TERMINATOR || b == ESCAPE) {
                escapes++;
            }
        }
        if (escapes == 0) {
            // The common case: every key of every scan is built of these.
            return utf8;
        }
        byte[] escaped = new byte[utf8.length + escapes];
        int n = 0;
        for (byte b : utf8) {
            if (b == TERMINATOR) {
                escaped[n++] = ESCAPE;
                escaped[n++] = 0x01;
            } else if (b == ESCAPE) {
                escaped[n++] = ESCAPE;
                escaped[n++] = 0x02;
            } else {
                escaped[n++] = b;
            }
        }
        return escaped;
    }

    /**
     * Decodes one encoded id starting at {@code offset}.
     *
     * @return the id; {@link #encodedLength} gives the number of bytes it took
     */
    public static String decode(byte[] bytes, int offset) {
        int end = offset;
        boolean escaped = false;
        for (; end < bytes.length && bytes[end] != TERMINATOR; end++) {
            escaped |= bytes[end] == ESCAPE;
        }
        if (end == bytes.length) {
            throw new IllegalArgumentException("encoded id at offset " + offset + " has no terminator");
        }
        if (!escaped) {
            // The common case, and the hot path of every scan: the bytes are the id's UTF-8 as they are.
            return new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
        }
        byte[] utf8 = new byte[end - offset];
        int n = 0;
        for (int i = offset; i < end; i++) {
            byte b = bytes[i];
            if (b == ESCAPE) {
                byte code = bytes[++i];
                utf8[n++] = code == 0x01 ? (byte) 0x00 : ESCAPE;
            } else {
                utf8[n++] = b;
            }
        }
        return new String(utf8, 0, n, StandardCharsets.UTF_8);
    }

    /** The number of bytes, terminator included, of the encoded id starting at {@code offset}. */
    public static int encodedLength(byte[] bytes, int offset) {
        return terminatorIndex(bytes, offset) - offset + 1;
    }

    private static int terminatorIndex(byte[] bytes, int offset) {
        for (int i = offset; i < bytes.length; i++) {
            if (bytes[i] == TERMINATOR) {
                return i;
            }
        }
        throw new IllegalArgumentException("encoded id at offset " + offset + " has no terminator");
    }
}
