package io.treecat.core.query.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.model.IdOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A set of ids as sorted, disjoint, non-adjacent {@link IdRange}s: the executor runs one bounded
 * iterator per range, in order, so results come out in id order and no id is visited twice.
 */
public final class IdRanges {
    public static final IdRanges ALL = new IdRanges(List.of(IdRange.all()));
    public static final IdRanges NONE = new IdRanges(List.of());

    private final List<IdRange> ranges;

    private IdRanges(List<IdRange> ranges) {
        this.ranges = ImmutableList.copyOf(ranges);
    }

    /** The union of any ranges, sorted and merged. */
    public static IdRanges of(List<IdRange> ranges) {
        requireNonNull(ranges, "ranges is null");
        List<IdRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparing(IdRange::lower, IdRanges::compareLower));
        List<IdRange> merged = new ArrayList<>();
        for (IdRange range : sorted) {
            if (!merged.isEmpty()) {
                IdRange last = merged.get(merged.size() - 1);
                // Overlapping or touching: [a, b) and [c, d) with c <= b merge to [a, max(b, d)).
                if (compareLowerToUpper(range.lower(), last.upper()) <= 0) {
                    byte[] upper = compareUpper(last.upper(), range.upper()) >= 0 ? last.upper() : range.upper();
                    merged.set(merged.size() - 1, new IdRange(last.lower(), upper));
                    continue;
                }
            }
            merged.add(range);
        }
        return new IdRanges(merged);
    }

    public static IdRanges of(IdRange... ranges) {
        return of(Arrays.asList(ranges));
    }

    /** The sorted, disjoint ranges; empty for {@link #NONE}. */
    public List<IdRange> ranges() {
        return ranges;
    }

    public boolean isAll() {
        return ranges.size() == 1 && ranges.get(0).isAll();
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    public boolean contains(String id) {
        return contains(IdOrder.encode(id));
    }

    /** Whether the encoded id (as from {@link IdOrder#encode}) lies in one of the ranges. */
    public boolean contains(byte[] encodedId) {
        for (IdRange range : ranges) {
            if (range.contains(encodedId)) {
                return true;
            }
        }
        return false;
    }

    public IdRanges union(IdRanges other) {
        if (isAll() || other.isEmpty()) {
            return this;
        }
        if (other.isAll() || isEmpty()) {
            return other;
        }
        List<IdRange> all = new ArrayList<>(ranges);
        all.addAll(other.ranges);
        return of(all);
    }

    public IdRanges intersect(IdRanges other) {
        if (isAll() || other.isEmpty()) {
            return other;
        }
        if (other.isAll() || isEmpty()) {
            return this;
        }
        // Both lists are sorted and disjoint: one merge pass, each step leaving the range that ends first
        // (linear, not every pair of ranges).
        List<IdRange> result = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < ranges.size() && j < other.ranges.size()) {
            IdRange left = ranges.get(i);
            IdRange right = other.ranges.get(j);
            byte[] lower = compareLower(left.lower(), right.lower()) >= 0 ? left.lower() : right.lower();
            byte[] upper = compareUpper(left.upper(), right.upper()) <= 0 ? left.upper() : right.upper();
            if (lower == null || upper == null || Arrays.compareUnsigned(lower, upper) < 0) {
                result.add(new IdRange(lower, upper));
            }
            if (compareUpper(left.upper(), right.upper()) <= 0) {
                i++;
            } else {
                j++;
            }
        }
        return of(result);
    }

    private static int compareLower(byte[] left, byte[] right) {
        if (left == null || right == null) {
            return left == null ? (right == null ? 0 : -1) : 1;
        }
        return Arrays.compareUnsigned(left, right);
    }

    private static int compareUpper(byte[] left, byte[] right) {
        if (left == null || right == null) {
            return left == null ? (right == null ? 0 : 1) : -1;
        }
        return Arrays.compareUnsigned(left, right);
    }

    private static int compareLowerToUpper(byte[] lower, byte[] upper) {
        if (lower == null || upper == null) {
            return -1;
        }
        return Arrays.compareUnsigned(lower, upper);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof IdRanges that && ranges.equals(that.ranges);
    }

    @Override
    public int hashCode() {
        return ranges.hashCode();
    }

    /** {@code all}, {@code none}, or the ranges joined by {@code " or "}. */
    @Override
    public String toString() {
        if (isAll()) {
            return "all";
        }
        if (isEmpty()) {
            return "none";
        }
        return ranges.stream().map(IdRange::toString).collect(Collectors.joining(" or "));
    }
}
