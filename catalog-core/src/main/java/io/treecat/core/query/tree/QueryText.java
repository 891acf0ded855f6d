package io.treecat.core.query.tree;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How the tree writes strings and field names back as query text, so that {@code toString} of every
 * node parses to the same node. Explain uses it too, so ids in plans read like literals.
 */
public final class QueryText {
    /** The reserved words; a field with one of these names is written in backticks. */
    public static final Set<String> KEYWORDS =
            Set.of("and", "or", "not", "in", "true", "false", "null", "startswith", "endswith", "exists");

    private static final Pattern BARE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$-]*");

    private QueryText() {}

    public static boolean isKeyword(String word) {
        return KEYWORDS.contains(word.toLowerCase(Locale.ROOT));
    }

    /** A single-quoted string literal, with the escapes the parser reads. */
    public static String string(String value) {
        return quote(value, '\'');
    }

    /** The name as written in a field path: bare when it can be, otherwise in backticks. */
    public static String fieldName(String name) {
        if (BARE_NAME.matcher(name).matches() && !isKeyword(name)) {
            return name;
        }
        return quote(name, '`');
    }

    private static String quote(String value, char quote) {
        StringBuilder out = new StringBuilder(value.length() + 2).append(quote);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == quote || c == '\\') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c < 0x20 || c == 0x7F) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append(quote).toString();
    }
}
