package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code like} pattern of Hive's filter language, compiled once and matched against whole values
 * without a regular expression.
 *
 * <p>Two spellings, one meaning (any one character, any run of characters, the rest literal):
 * <ul>
 *   <li>{@link Syntax#SQL}, partition filters: {@code _} is any one character, {@code %} any run,
 *       {@code \} takes the next character literally (Hive's direct SQL says {@code ESCAPE '\'}); a
 *       trailing {@code \} is a backslash.</li>
 *   <li>{@link Syntax#JDOQL_MATCHES}, table filters: Hive's JDO query calls {@code String.matches},
 *       which DataNucleus runs on the database as a LIKE: {@code .} is any one character,
 *       {@code .*} any run, {@code \} takes the next character literally, everything else is literal;
 *       a leading {@code (?i)} makes the match ignore case (Hive's client sends
 *       {@code hive_filter_field_tableName__ like "(?i)ord.*"} for the table pattern {@code ord*}).</li>
 * </ul>
 *
 * <p>Characters are code points; matching is case-sensitive. The pattern splits at its "any run"
 * wildcards into segments of fixed length, each placed at its leftmost position after the previous
 * one (the first at the start, the last at the end). That placement is optimal, so nothing
 * backtracks: time is at most value length × pattern length, whatever the input (no regular
 * expression, so no catastrophic backtracking).
 */
final class LikePattern {
    /** How a pattern spells its wildcards. */
    enum Syntax {
        SQL,
        JDOQL_MATCHES
    }

    /** A code point that matches any one character. */
    private static final int ANY = -1;

    /** The fixed-length pieces between "any run" wildcards; each element a code point or {@link #ANY}. */
    private final List<int[]> segments;
    /** Whether the pattern starts / ends with an "any run" wildcard. */
    private final boolean openStart;

    private final boolean openEnd;
    private final boolean ignoreCase;

    private LikePattern(List<int[]> segments, boolean openStart, boolean openEnd, boolean ignoreCase) {
        this.segments = segments;
        this.openStart = openStart;
        this.openEnd = openEnd;
        this.ignoreCase = ignoreCase;
    }

    static LikePattern compile(String pattern, Syntax syntax) {
        requireNonNull(pattern, "pattern is null");
        boolean ignoreCase = syntax == Syntax.JDOQL_MATCHES && pattern.startsWith("(?i)");
        int[] chars = (ignoreCase ? pattern.substring(4) : pattern)
                .codePoints()
                .map(c -> ignoreCase ? fold(c) : c)
                .toArray();
        List<int[]> segments = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        boolean openStart = false;
        boolean openEnd = false;
        for (int i = 0; i < chars.length; i++) {
            int c = chars[i];
            boolean anyRun;
            int single;
            if (c == '\\' && i + 1 < chars.length) {
                anyRun = false;
                single = chars[++i];
            } else if (syntax == Syntax.SQL) {
                anyRun = c == '%';
                single = c == '_' ? ANY : c;
            } else if (c == '.' && i + 1 < chars.length && chars[i + 1] == '*') {
                anyRun = true;
                single = 0;
                i++;
            } else {
                anyRun = false;
                single = c == '.' ? ANY : c;
            }
            if (anyRun) {
                if (segments.isEmpty() && current.isEmpty()) {
                    openStart = true;
                }
                if (!current.isEmpty()) {
                    segments.add(current.stream().mapToInt(Integer::intValue).toArray());
                    current.clear();
                }
                openEnd = true;
            } else {
                current.add(single);
                openEnd = false;
            }
        }
        if (!current.isEmpty() || segments.isEmpty() && !openStart) {
            segments.add(current.stream().mapToInt(Integer::intValue).toArray());
        }
        return new LikePattern(List.copyOf(segments), openStart, openEnd, ignoreCase);
    }

    /** A code point with its case folded away, for {@code (?i)}. */
    private static int fold(int c) {
        return Character.toLowerCase(Character.toUpperCase(c));
    }

    /** Whether the whole of {@code value} matches. */
    boolean matches(String value) {
        int[] text = value.codePoints().map(c -> ignoreCase ? fold(c) : c).toArray();
        if (segments.isEmpty()) {
            return true; // only "any run" wildcards
        }
        int first = 0;
        int last = segments.size() - 1;
        int from = 0;
        int to = text.length;
        if (!openStart) {
            int[] head = segments.get(0);
            if (!matchesAt(head, text, 0) || (segments.size() == 1 && !openEnd && head.length != text.length)) {
                return false;
            }
            from = head.length;
            first = 1;
        }
        if (!openEnd && last >= first) {
            int[] tail = segments.get(last);
            int start = text.length - tail.length;
            if (start < from || !matchesAt(tail, text, start)) {
                return false;
            }
            to = start;
            last--;
        }
        for (int s = first; s <= last; s++) {
            int at = find(segments.get(s), text, from, to);
            if (at < 0) {
                return false;
            }
            from = at + segments.get(s).length;
        }
        return true;
    }

    /** The literal text every match starts with (empty if the pattern starts with a wildcard or ignores case). */
    String literalPrefix() {
        if (openStart || ignoreCase) {
            return "";
        }
        StringBuilder prefix = new StringBuilder();
        for (int c : segments.get(0)) {
            if (c == ANY) {
                break;
            }
            prefix.appendCodePoint(c);
        }
        return prefix.toString();
    }

    /** Whether the pattern has no wildcard, so that it matches exactly {@link #literalPrefix()}. */
    boolean isLiteral() {
        return !ignoreCase
                && !openStart
                && !openEnd
                && segments.size() == 1
                && Arrays.stream(segments.get(0)).noneMatch(c -> c == ANY);
    }

    private static boolean matchesAt(int[] segment, int[] text, int start) {
        if (start < 0 || start + segment.length > text.length) {
            return false;
        }
        for (int i = 0; i < segment.length; i++) {
            if (segment[i] != ANY && segment[i] != text[start + i]) {
                return false;
            }
        }
        return true;
    }

    /** The leftmost start in [from, to - length] where {@code segment} matches, or -1. */
    private static int find(int[] segment, int[] text, int from, int to) {
        for (int start = from; start + segment.length <= to; start++) {
            if (matchesAt(segment, text, start)) {
                return start;
            }
        }
        return -1;
    }
}
