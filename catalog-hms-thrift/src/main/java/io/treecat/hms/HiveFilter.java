package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * Hive's metastore filter language, as {@code get_partitions_by_filter} and
 * {@code get_table_names_by_filter} take it, parsed into a small immutable tree. The grammar is Hive
 * 4's ({@code PartitionFilter.g4}):
 *
 * <pre>
 * filter    := (or)?                          -- empty or blank: everything
 * or        := and ('or' and)*
 * and       := expr ('and' expr)*
 * expr      := '(' or ')' | condition
 * condition := key op value | value op key     -- like only as key like value
 *            | key ['not'] 'between' value 'and' value
 *            | '(' key ')' ['not'] 'in' '(' value (',' value)* ')'
 * op        := '=' | '==' | '!=' | '&lt;&gt;' | '&lt;' | '&lt;=' | '&gt;' | '&gt;=' | 'like'
 * value     := string+ | ['-'] digits | 'date' string | yyyy-mm-dd
 *            | 'timestamp' string | yyyy-mm-dd hh:mm:ss
 * key       := [A-Za-z0-9_]+ (not all digits, not a keyword) | `any text` (`` for `)
 * </pre>
 *
 * Keywords are case-insensitive; keys are kept as written (partition keys match case-insensitively,
 * table parameter names exactly). A string is quoted with ' or " and keeps its backslashes: Hive
 * passes {@code \} through to the comparison, where {@code like} reads it as its escape character.
 * Date and timestamp literals must be valid and are then strings, as in Hive; integers are 64-bit.
 * There is no prefix {@code not} (only {@code not between} and {@code not in}), {@code in} wants its key in
 * parentheses, and {@code <=>} and Hive's multi-column {@code (struct(...)) in (...)} are refused. A malformed
 * filter is a {@link MetaException} "Error parsing partition filter at position N: expected … but found …"
 * (position 1-based), the type Hive answers with.
 *
 * <p>A chain of one operator is one {@link And} or {@link Or} node with many children, however the
 * client grouped it, and nothing here recurses per term or per parenthesis: a filter of 10,000 terms
 * (Spark's {@code ((a or b) or c) …}) parses, binds and evaluates in time linear in its length. What
 * nests is the alternation of {@code and} and {@code or}, bounded by {@link HiveFilterLimits} (as is
 * the length); the walks over the tree recurse once per level of it.
 */
final class HiveFilter {
    /** A node of the filter tree. */
    sealed interface Node permits And, Or, Compare, In, Between, All {
        /** How deeply {@code and} and {@code or} alternate in and below this node: 0 for a condition. */
        default int depth() {
            return 0;
        }
    }

    /**
     * The {@code and} of two or more children, none of them an {@code And}: a chain of {@code and}s is
     * one node, however it was grouped, so walks over it loop rather than recurse per term.
     */
    record And(List<Node> children, int depth) implements Node {
        And {
            children = List.copyOf(children);
        }

        And(List<Node> children) {
            this(children, depthOf(children));
        }

        And(Node... children) {
            this(List.of(children));
        }
    }

    /** The {@code or} of two or more children, none of them an {@code Or} (as {@link And}). */
    record Or(List<Node> children, int depth) implements Node {
        Or {
            children = List.copyOf(children);
        }

        Or(List<Node> children) {
            this(children, depthOf(children));
        }

        Or(Node... children) {
            this(List.of(children));
        }
    }

    private static int depthOf(List<Node> children) {
        int depth = 0;
        for (Node child : children) {
            depth = Math.max(depth, child.depth());
        }
        return depth + 1;
    }

    /** The empty filter: every partition. */
    record All() implements Node {}

    /** {@code key op value}; {@code value op key} is stored mirrored. */
    record Compare(String key, Operator operator, Literal value) implements Node {
        Compare {
            requireNonNull(key, "key is null");
            requireNonNull(operator, "operator is null");
            requireNonNull(value, "value is null");
        }
    }

    /** {@code (key) [not] in (values)}: Hive's or of equalities, or and of inequalities. */
    record In(String key, List<Literal> values, boolean negated) implements Node {
        In {
            values = List.copyOf(values);
        }
    }

    /** {@code key [not] between low and high}: Hive's {@code >= and <=}, or {@code < or >}. */
    record Between(String key, Literal low, Literal high, boolean negated) implements Node {}

    /**
     * A literal: its text, and whether it was written as an integer (Hive's Long; every other literal,
     * dates and timestamps included, is a String to Hive).
     */
    record Literal(String text, boolean integer) {
        Literal {
            requireNonNull(text, "text is null");
        }

        long number() {
            return Long.parseLong(text);
        }

        /** As written in a filter, for messages. */
        String show() {
            return integer ? text : "'" + text + "'";
        }
    }

    enum Operator {
        EQUALS("="),
        NOT_EQUALS("!="),
        LESS("<"),
        LESS_OR_EQUAL("<="),
        GREATER(">"),
        GREATER_OR_EQUAL(">="),
        LIKE("like");

        private final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }

        String symbol() {
            return symbol;
        }

        /** The operator with its operands swapped: {@code 5 < k} is {@code k > 5}. */
        Operator mirrored() {
            return switch (this) {
                case LESS -> GREATER;
                case LESS_OR_EQUAL -> GREATER_OR_EQUAL;
                case GREATER -> LESS;
                case GREATER_OR_EQUAL -> LESS_OR_EQUAL;
                case EQUALS, NOT_EQUALS, LIKE -> this;
            };
        }
    }

    private static final DateTimeFormatter DATE =
            DateTimeFormatter.ofPattern("uuuu-MM-dd", Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);
    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd HH:mm:ss")
            .optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true)
            .optionalEnd()
            .toFormatter(Locale.ROOT)
            .withResolverStyle(ResolverStyle.STRICT);

    private enum Kind {
        KEYWORD,
        IDENTIFIER,
        QUOTED_KEY,
        STRING,
        INTEGER,
        DATE_VALUE,
        TIMESTAMP_VALUE,
        OPERATOR,
        MINUS,
        LEFT,
        RIGHT,
        COMMA,
        END
    }

    private record Token(Kind kind, String text, int position) {
        String describe() {
            return switch (kind) {
                case END -> "end of filter";
                case STRING -> "string " + text;
                default -> "'" + text + "'";
            };
        }

        boolean is(Kind expected, String word) {
            return kind == expected && text.equalsIgnoreCase(word);
        }
    }

    private final List<Token> tokens;
    private final int maxDepth;
    private int next;

    private HiveFilter(String text, int maxDepth) throws MetaException {
        this.tokens = tokenize(text);
        this.maxDepth = maxDepth;
    }

    /** One comparison of a key with a literal, as a check sees it. */
    @FunctionalInterface
    interface ConditionCheck {
        void check(String key, Operator operator, Literal value) throws MetaException;
    }

    /**
     * Runs {@code check} on every comparison the filter makes, as Hive splits it: {@code in} into one
     * {@code =} (or, negated, {@code !=}) per value, {@code between} into {@code >=} and {@code <=} (or
     * {@code <} and {@code >}).
     */
    static void forEachCondition(Node node, ConditionCheck check) throws MetaException {
        // Recurses once per level of and/or alternation, which the parser bounds (HiveFilterLimits).
        if (node instanceof And and) {
            for (Node child : and.children()) {
                forEachCondition(child, check);
            }
        } else if (node instanceof Or or) {
            for (Node child : or.children()) {
                forEachCondition(child, check);
            }
        } else if (node instanceof Compare compare) {
            check.check(compare.key(), compare.operator(), compare.value());
        } else if (node instanceof In in) {
            for (Literal value : in.values()) {
                check.check(in.key(), in.negated() ? Operator.NOT_EQUALS : Operator.EQUALS, value);
            }
        } else if (node instanceof Between between) {
            check.check(between.key(), between.negated() ? Operator.LESS : Operator.GREATER_OR_EQUAL, between.low());
            check.check(between.key(), between.negated() ? Operator.GREATER : Operator.LESS_OR_EQUAL, between.high());
        }
    }

    /** Parses {@code filter} within the default limits; null or blank is {@link All}. */
    static Node parse(String filter) throws MetaException {
        return parse(filter, HiveFilterLimits.DEFAULTS);
    }

    /** Parses {@code filter} within {@code limits}; null or blank is {@link All}. */
    static Node parse(String filter, HiveFilterLimits limits) throws MetaException {
        if (filter == null || filter.isBlank()) {
            return new All();
        }
        if (filter.length() > limits.maxLength()) {
            throw new MetaException("Error parsing partition filter: the filter is longer than "
                    + HiveFilterLimits.MAX_LENGTH_KEY + " allows (" + limits.maxLength() + " characters, found "
                    + filter.length() + ")");
        }
        HiveFilter parser = new HiveFilter(filter, limits.maxDepth());
        Node node = parser.filter();
        parser.expect(Kind.END, "'and', 'or' or end of filter");
        return node;
    }

    private static MetaException error(int position, String expected, String found) {
        return new MetaException("Error parsing partition filter at position " + position + ": expected " + expected
                + " but found " + found);
    }

    private Token peek() {
        return peek(0);
    }

    private Token peek(int ahead) {
        return tokens.get(Math.min(next + ahead, tokens.size() - 1));
    }

    private Token expect(Kind kind, String expected) throws MetaException {
        Token token = peek();
        if (token.kind() != kind) {
            throw error(token.position(), expected, token.describe());
        }
        next++;
        return token;
    }

    private boolean keyword(String word) {
        return peek().is(Kind.KEYWORD, word);
    }

    /**
     * {@code or}, without recursion: one {@link Group} per open parenthesis on a stack of its own, so
     * neither a long chain of terms nor thousands of parentheses (Spark's {@code ((a or b) or c) …})
     * deepen the Java stack. Chains of one operator merge as they are read, whatever their grouping
     * ({@link Chain}); what is left to nest is the alternation of {@code and} and {@code or}, bounded
     * by {@code maxDepth}.
     */
    private Node filter() throws MetaException {
        Deque<Group> open = new ArrayDeque<>();
        Group group = new Group(1);
        while (true) {
            Token token = peek();
            if (token.kind() == Kind.LEFT && !startsIn()) {
                if (peek(1).is(Kind.KEYWORD, "struct")) {
                    throw error(
                            peek(1).position(), "a condition (multi-column in is not supported)", peek(1).describe());
                }
                next++;
                open.push(group);
                group = new Group(token.position());
                continue;
            }
            group.operand(token.kind() == Kind.LEFT ? in() : condition());
            while (true) {
                if (keyword("and")) {
                    next++;
                    break;
                }
                if (keyword("or")) {
                    next++;
                    group.endTerm();
                    break;
                }
                if (open.isEmpty()) {
                    return freeze(group.finish());
                }
                expect(Kind.RIGHT, "')'");
                Object inner = group.finish();
                group = open.pop();
                group.operand(inner);
            }
        }
    }

    /** Whether the next tokens are {@code (key) [not] in}, an {@code in} rather than a group. */
    private boolean startsIn() {
        return isKey(peek(1))
                && peek(2).kind() == Kind.RIGHT
                && (peek(3).is(Kind.KEYWORD, "in")
                        || peek(3).is(Kind.KEYWORD, "not") && peek(4).is(Kind.KEYWORD, "in"));
    }

    /**
     * An {@code and} or {@code or} being read: its items ({@link Node}s, or chains of the other
     * operator) in a deque, so that a chain of the same operator merges in by moving the shorter list
     * onto the longer one's end. Every item moves O(log n) times, however the chain was grouped.
     */
    private final class Chain {
        private final boolean or;
        private final int position;
        private ArrayDeque<Object> items = new ArrayDeque<>();
        private int depth = 1;

        Chain(boolean or, int position) {
            this.or = or;
            this.position = position;
        }

        void add(Object item) throws MetaException {
            if (item instanceof Chain chain && chain.or == or) {
                if (items.size() >= chain.items.size()) {
                    items.addAll(chain.items);
                } else {
                    for (Iterator<Object> mine = items.descendingIterator(); mine.hasNext(); ) {
                        chain.items.addFirst(mine.next());
                    }
                    items = chain.items;
                }
                depth = Math.max(depth, chain.depth);
            } else {
                items.addLast(item);
                depth = Math.max(depth, 1 + (item instanceof Chain chain ? chain.depth : 0));
            }
            // A chain of one item is that item (collapse), so only a real and/or counts.
            if (items.size() > 1 && depth > maxDepth) {
                throw error(
                        position,
                        "at most " + maxDepth + " levels of nested and/or (" + HiveFilterLimits.MAX_DEPTH_KEY + ")",
                        "more");
            }
        }

        /** The one item of a chain of one, else the chain. */
        Object collapse() {
            return items.size() == 1 ? items.getFirst() : this;
        }
    }

    /** The filter, or one parenthesized part of it: the {@code or} of the {@code and}s read so far. */
    private final class Group {
        private final int position;
        private final Chain terms;
        private Chain term;

        Group(int position) {
            this.position = position;
            this.terms = new Chain(true, position);
            this.term = new Chain(false, position);
        }

        void operand(Object operand) throws MetaException {
            term.add(operand);
        }

        void endTerm() throws MetaException {
            terms.add(term.collapse());
            term = new Chain(false, position);
        }

        Object finish() throws MetaException {
            endTerm();
            return terms.collapse();
        }
    }

    /** The immutable tree of what was read; recurses once per level of alternation (at most {@code maxDepth}). */
    private static Node freeze(Object item) {
        if (item instanceof Node node) {
            return node;
        }
        Chain chain = (Chain) item;
        List<Node> children = new ArrayList<>(chain.items.size());
        for (Object child : chain.items) {
            children.add(freeze(child));
        }
        return chain.or ? new Or(children, chain.depth) : new And(children, chain.depth);
    }

    /** {@code (key) [not] in (value, ...)}. */
    private Node in() throws MetaException {
        next++;
        String key = key();
        next++;
        boolean negated = keyword("not");
        next += negated ? 2 : 1;
        expect(Kind.LEFT, "'('");
        List<Literal> values = new ArrayList<>();
        values.add(literal());
        while (peek().kind() == Kind.COMMA) {
            next++;
            values.add(literal());
        }
        expect(Kind.RIGHT, "',' or ')'");
        return new In(key, values, negated);
    }

    private Node condition() throws MetaException {
        Token first = peek();
        if (isValueStart(first)) {
            Literal value = literal();
            Token operatorToken = peek();
            Operator operator = operator();
            if (operator == Operator.LIKE) {
                throw error(
                        operatorToken.position(),
                        "a comparison operator (the value goes on the right of like: key like 'pattern')",
                        operatorToken.describe());
            }
            return new Compare(key(), operator.mirrored(), value);
        }
        String key = key();
        boolean negated = keyword("not");
        if (negated) {
            next++;
            if (!keyword("between")) {
                throw error(
                        peek().position(),
                        "'between' after 'not' (for in, write (" + key + ") not in (...))",
                        peek().describe());
            }
        }
        if (keyword("between")) {
            next++;
            Literal low = literal();
            if (!keyword("and")) {
                throw error(peek().position(), "'and'", peek().describe());
            }
            next++;
            return new Between(key, low, literal(), negated);
        }
        if (keyword("in")) {
            throw error(
                    peek().position(),
                    "an operator (Hive's grammar wants the key of in in parentheses: (" + key + ") in (...))",
                    peek().describe());
        }
        return new Compare(key, operator(), literal());
    }

    private boolean isValueStart(Token token) {
        return switch (token.kind()) {
            case STRING, INTEGER, MINUS, DATE_VALUE, TIMESTAMP_VALUE -> true;
            case KEYWORD ->
                (token.is(Kind.KEYWORD, "date") || token.is(Kind.KEYWORD, "timestamp"))
                        && peek(1).kind() == Kind.STRING;
            default -> false;
        };
    }

    private static boolean isKey(Token token) {
        return token.kind() == Kind.IDENTIFIER || token.kind() == Kind.QUOTED_KEY;
    }

    private String key() throws MetaException {
        Token token = peek();
        if (isKey(token)) {
            next++;
            return token.text();
        }
        throw error(token.position(), "a partition key", token.describe());
    }

    private Operator operator() throws MetaException {
        Token token = peek();
        if (token.is(Kind.KEYWORD, "like")) {
            next++;
            return Operator.LIKE;
        }
        if (token.kind() == Kind.OPERATOR) {
            Operator operator = switch (token.text()) {
                case "=", "==" -> Operator.EQUALS;
                case "!=", "<>" -> Operator.NOT_EQUALS;
                case "<" -> Operator.LESS;
                case "<=" -> Operator.LESS_OR_EQUAL;
                case ">" -> Operator.GREATER;
                case ">=" -> Operator.GREATER_OR_EQUAL;
                default -> null;
            };
            if (operator != null) {
                next++;
                return operator;
            }
        }
        throw error(
                token.position(),
                "one of =, ==, !=, <>, <, <=, >, >=, like",
                token.kind() == Kind.OPERATOR ? "unsupported operator '" + token.text() + "'" : token.describe());
    }

    private Literal literal() throws MetaException {
        Token token = peek();
        switch (token.kind()) {
            case STRING -> {
                // Hive's string+: adjacent strings are one literal, the text between the outer quotes.
                StringBuilder raw = new StringBuilder();
                while (peek().kind() == Kind.STRING) {
                    raw.append(peek().text());
                    next++;
                }
                return new Literal(unquote(raw.toString()), false);
            }
            case MINUS, INTEGER -> {
                boolean minus = token.kind() == Kind.MINUS;
                next += minus ? 1 : 0;
                Token digits = expect(Kind.INTEGER, "an integer after '-'");
                String text = (minus ? "-" : "") + digits.text();
                try {
                    return new Literal(Long.toString(Long.parseLong(text)), true);
                } catch (NumberFormatException e) {
                    throw error(
                            token.position(),
                            "an integer between -9223372036854775808 and 9223372036854775807",
                            "'" + text + "'");
                }
            }
            case DATE_VALUE, TIMESTAMP_VALUE -> {
                next++;
                return temporal(token, token.text(), token.kind() == Kind.DATE_VALUE);
            }
            case KEYWORD -> {
                if ((token.is(Kind.KEYWORD, "date") || token.is(Kind.KEYWORD, "timestamp"))
                        && peek(1).kind() == Kind.STRING) {
                    next += 2;
                    return temporal(token, unquote(peek(-1).text()), token.is(Kind.KEYWORD, "date"));
                }
            }
            default -> {}
        }
        throw error(token.position(), "a string or integer value", token.describe());
    }

    /** A date or timestamp literal, checked as Hive checks it, and then a string (as Hive's is). */
    private static Literal temporal(Token token, String text, boolean date) throws MetaException {
        try {
            (date ? DATE : TIMESTAMP).parse(text);
        } catch (DateTimeParseException e) {
            throw error(
                    token.position(),
                    date ? "a valid date yyyy-mm-dd" : "a valid timestamp yyyy-mm-dd hh:mm:ss[.f]",
                    "'" + text + "'");
        }
        return new Literal(text, false);
    }

    /** Hive's unquoting: one quote off each end if both ends hold the same quote; backslashes stay. */
    private static String unquote(String raw) {
        char first = raw.charAt(0);
        return raw.length() > 1 && (first == '\'' || first == '"') && raw.charAt(raw.length() - 1) == first
                ? raw.substring(1, raw.length() - 1)
                : raw;
    }

    private static boolean isIdentifierChar(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_';
    }

    private static boolean isDigit(String text, int i) {
        return i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9';
    }

    /** The length of a {@code dddd-dd-dd} (and, with {@code time}, {@code dddd-dd-dd dd:dd:dd}) at {@code i}, or 0. */
    private static int temporalLength(String text, int i, boolean time) {
        String shape = time ? "dddd-dd-dd dd:dd:dd" : "dddd-dd-dd";
        for (int k = 0; k < shape.length(); k++) {
            char expected = shape.charAt(k);
            if (expected == 'd' ? !isDigit(text, i + k) : i + k >= text.length() || text.charAt(i + k) != expected) {
                return 0;
            }
        }
        return shape.length();
    }

    private static final List<String> KEYWORDS =
            List.of("AND", "OR", "NOT", "BETWEEN", "IN", "STRUCT", "CONST", "DATE", "TIMESTAMP", "LIKE");
    private static final List<String> OPERATORS = List.of("<=>", "<=", "<>", ">=", "==", "!=", "<", ">", "=");

    /** Hive's lexer: the longest token wins, and of two as long the keyword or the integer. */
    private static List<Token> tokenize(String text) throws MetaException {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            int position = i + 1;
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                i++;
                continue;
            }
            Kind single = switch (c) {
                case '(' -> Kind.LEFT;
                case ')' -> Kind.RIGHT;
                case ',' -> Kind.COMMA;
                case '-' -> Kind.MINUS;
                default -> null;
            };
            if (single != null) {
                tokens.add(new Token(single, String.valueOf(c), position));
                i++;
                continue;
            }
            String operator = null;
            for (String candidate : OPERATORS) {
                if (text.startsWith(candidate, i)) {
                    operator = candidate;
                    break;
                }
            }
            if (operator != null) {
                tokens.add(new Token(Kind.OPERATOR, operator, position));
                i += operator.length();
            } else if (c == '\'' || c == '"') {
                int j = i + 1;
                while (j < text.length() && text.charAt(j) != c) {
                    j += text.charAt(j) == '\\' && j + 1 < text.length() ? 2 : 1;
                }
                if (j >= text.length()) {
                    throw error(text.length() + 1, c + " to close the string at position " + position, "end of filter");
                }
                tokens.add(new Token(Kind.STRING, text.substring(i, j + 1), position));
                i = j + 1;
            } else if (c == '`') {
                StringBuilder key = new StringBuilder();
                int j = i + 1;
                while (true) {
                    if (j >= text.length()) {
                        throw error(text.length() + 1, "` to close the key at position " + position, "end of filter");
                    }
                    if (text.charAt(j) == '`') {
                        if (j + 1 < text.length() && text.charAt(j + 1) == '`') {
                            key.append('`');
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    key.append(text.charAt(j++));
                }
                if (key.length() == 0) {
                    throw error(position, "a non-empty key", "'``'");
                }
                tokens.add(new Token(Kind.QUOTED_KEY, key.toString(), position));
                i = j + 1;
            } else if (isIdentifierChar(c)) {
                int j = i;
                while (j < text.length() && isIdentifierChar(text.charAt(j))) {
                    j++;
                }
                String word = text.substring(i, j);
                int timestamp = temporalLength(text, i, true);
                int date = timestamp > 0 ? 0 : temporalLength(text, i, false);
                if (Math.max(timestamp, date) > word.length()) {
                    int length = Math.max(timestamp, date);
                    tokens.add(new Token(
                            timestamp > 0 ? Kind.TIMESTAMP_VALUE : Kind.DATE_VALUE,
                            text.substring(i, i + length),
                            position));
                    i += length;
                    continue;
                }
                Kind kind = word.chars().allMatch(d -> d >= '0' && d <= '9')
                        ? Kind.INTEGER
                        : KEYWORDS.contains(word.toUpperCase(Locale.ROOT)) ? Kind.KEYWORD : Kind.IDENTIFIER;
                tokens.add(new Token(kind, word, position));
                i = j;
            } else {
                throw error(position, "a partition key, value, operator or parenthesis", "'" + c + "'");
            }
        }
        tokens.add(new Token(Kind.END, "", text.length() + 1));
        return tokens;
    }
}
