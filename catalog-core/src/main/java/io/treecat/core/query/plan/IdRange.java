package io.treecat.core.query.plan;

import io.treecat.core.model.IdOrder;
import io.treecat.core.query.tree.QueryText;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A half-open range {@code [lowerInclusive, upperExclusive)} over the {@link IdOrder#encode}
 * encoding of one id, compared as unsigned bytes: exactly what a storage iterator over the children
 * of one parent takes as its seek key and upper bound. A null bound is unbounded. The range is never
 * empty.
 *
 * <p>Bounds are byte strings, not ids, so that every id set a predicate on {@code obj_id} can accept
 * is expressible: "after {@code s}" is {@code esc(s) 0x01}, which sorts after {@code s} but before
 * every id that extends it; "starts with {@code p}" is {@code [esc(p), esc(p) 0xFF)}.
 */
public final class IdRange {
    private static final byte ESCAPE = 0x01;

    private final byte[] lowerInclusive;
    private final byte[] upperExclusive;

    public IdRange(byte[] lowerInclusive, byte[] upperExclusive) {
        this.lowerInclusive = lowerInclusive == null ? null : lowerInclusive.clone();
        this.upperExclusive = upperExclusive == null ? null : upperExclusive.clone();
        if (lowerInclusive != null
                && upperExclusive != null
                && Arrays.compareUnsigned(lowerInclusive, upperExclusive) >= 0) {
            throw new IllegalArgumentException("an id range is not empty: " + this);
        }
    }

    /** Every id. */
    public static IdRange all() {
        return new IdRange(null, null);
    }

    /** Exactly {@code id}. */
    public static IdRange point(String id) {
        return new IdRange(IdOrder.encode(id), after(id));
    }

    /** Every id that starts with {@code prefix}. */
    public static IdRange prefix(String prefix) {
        if (prefix.isEmpty()) {
            return all();
        }
        byte[] escaped = IdOrder.encodeUnterminated(prefix);
        byte[] upper = Arrays.copyOf(escaped, escaped.length + 1);
        upper[escaped.length] = IdOrder.AFTER_ALL;
        return new IdRange(escaped, upper);
    }

    public static IdRange atLeast(String id) {
        return new IdRange(IdOrder.encode(id), null);
    }

    public static IdRange greaterThan(String id) {
        return new IdRange(after(id), null);
    }

    public static IdRange lessThan(String id) {
        return new IdRange(null, IdOrder.encode(id));
    }

    public static IdRange atMost(String id) {
        return new IdRange(null, after(id));
    }

    /**
     * {@code esc(id) 0x01}: above {@code id} and below every id that has {@code id} as a proper prefix or is
     * greater; the inclusive lower bound of the ids after {@code id} (a resumed page starts there).
     */
    public static byte[] after(String id) {
        byte[] escaped = IdOrder.encodeUnterminated(id);
        byte[] after = Arrays.copyOf(escaped, escaped.length + 1);
        after[escaped.length] = ESCAPE;
        return after;
    }

    /** The inclusive lower bound, or null when unbounded below; a copy. */
    public byte[] lowerInclusive() {
        return lowerInclusive == null ? null : lowerInclusive.clone();
    }

    /** The exclusive upper bound, or null when unbounded above; a copy. */
    public byte[] upperExclusive() {
        return upperExclusive == null ? null : upperExclusive.clone();
    }

    public boolean isAll() {
        return lowerInclusive == null && upperExclusive == null;
    }

    /** Whether the encoded id (as from {@link IdOrder#encode}) lies in the range. */
    public boolean contains(byte[] encodedId) {
        return (lowerInclusive == null || Arrays.compareUnsigned(lowerInclusive, encodedId) <= 0)
                && (upperExclusive == null || Arrays.compareUnsigned(encodedId, upperExclusive) < 0);
    }

    public boolean contains(String id) {
        return contains(IdOrder.encode(id));
    }

    // Package-private views without copies, for IdRanges' merging.
    byte[] lower() {
        return lowerInclusive;
    }

    byte[] upper() {
        return upperExclusive;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof IdRange range
                && Arrays.equals(lowerInclusive, range.lowerInclusive)
                && Arrays.equals(upperExclusive, range.upperExclusive);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(lowerInclusive) + Arrays.hashCode(upperExclusive);
    }

    /**
     * Reads as an interval of ids: {@code ['a', 'b')} is a ≤ id &lt; b, {@code ('a', +∞)} is id &gt; a,
     * {@code ['ab', 'ab'…]} is every id starting with ab. Bounds that are no id form print as hex.
     */
    @Override
    public String toString() {
        return describeLower() + ", " + describeUpper();
    }

    private String describeLower() {
        if (lowerInclusive == null) {
            return "(-∞";
        }
        Bound bound = Bound.decode(lowerInclusive);
        if (bound == null) {
            return "[0x" + HexFormat.of().formatHex(lowerInclusive);
        }
        return switch (bound.suffix()) {
            case TERMINATOR, NONE -> "[" + QueryText.string(bound.id());
            case AFTER -> "(" + QueryText.string(bound.id());
            case AFTER_ALL -> "(" + QueryText.string(bound.id()) + "…";
        };
    }

    private String describeUpper() {
        if (upperExclusive == null) {
            return "+∞)";
        }
        Bound bound = Bound.decode(upperExclusive);
        if (bound == null) {
            return "0x" + HexFormat.of().formatHex(upperExclusive) + ")";
        }
        return switch (bound.suffix()) {
            case TERMINATOR, NONE -> QueryText.string(bound.id()) + ")";
            case AFTER -> QueryText.string(bound.id()) + "]";
            case AFTER_ALL -> QueryText.string(bound.id()) + "…]";
        };
    }

    /** A bound read back as an id and what follows its escaped bytes. */
    private record Bound(String id, Suffix suffix) {
        enum Suffix {
            /** {@code esc(id) 0x00}: the id itself. */
            TERMINATOR,
            /** {@code esc(id) 0x01}: just after the id. */
            AFTER,
            /** {@code esc(id) 0xFF}: after every id starting with it. */
            AFTER_ALL,
            /** {@code esc(id)}: just before the id, and every id starting with it. */
            NONE
        }

        static Bound decode(byte[] bytes) {
            ByteArrayOutputStream utf8 = new ByteArrayOutputStream(bytes.length);
            Suffix suffix = Suffix.NONE;
            for (int i = 0; i < bytes.length; i++) {
                byte b = bytes[i];
                boolean last = i == bytes.length - 1;
                if (b == IdOrder.TERMINATOR || b == IdOrder.AFTER_ALL || (b == ESCAPE && last)) {
                    if (!last) {
                        return null;
                    }
                    suffix =
                            b == IdOrder.TERMINATOR ? Suffix.TERMINATOR : b == ESCAPE ? Suffix.AFTER : Suffix.AFTER_ALL;
                } else if (b == ESCAPE) {
                    byte code = bytes[++i];
                    if (code != 0x01 && code != 0x02) {
                        return null;
                    }
                    utf8.write(code == 0x01 ? 0x00 : ESCAPE);
                } else {
                    utf8.write(b);
                }
            }
            try {
                String id = StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(utf8.toByteArray()))
                        .toString();
                return new Bound(id, suffix);
            } catch (CharacterCodingException e) {
                return null;
            }
        }
    }
}
