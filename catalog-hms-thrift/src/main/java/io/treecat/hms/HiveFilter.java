package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * Hive's metastore filter language, as {@code get_partitions_by_filter} and
 * {@code get_table_names_by_filter} take it, parsed into a small immutable tree.
 *
 * <pre>
 * filter   := (or)?                       -- empty: everything
 * or       := and ('or' and)*
 * and      := not ('and' not)*
 * not      := 'not' not | '(' or ')' | leaf
 * leaf     := key op value | value op key
 *           | key ['not'] 'between' value 'and' value
 *           | key ['not'] 'in' '(' value (',' value)* ')'
 * op       := '=' | '!=' | '&lt;&gt;' | '&lt;' | '&lt;=' | '&gt;' | '&gt;=' | 'like'
 * value    := 'text' | "text" | integer | 'date' 'text' | 'timestamp' 'text'
 * key      := [A-Za-z0-9_.$]+ (not all digits) | `any text`
 * </pre>
 *
 * Keywords are case-insensitive; keys are kept as written (partition keys match case-insensitively,
 * table parameter names exactly). A leading {@code -} is part
 * of an integer; integers are 64-bit. Inside a string, a backslash takes the next character as it is.
 * {@code not} as a prefix operator is TreeCat's addition (Hive's grammar has only {@code not between}
 * and {@code not in}). A malformed filter is a {@link MetaException}
 * "Error parsing partition filter at position N: expected … but found …" (position 1-based).
 */
final class HiveFilter {
  /** A node of the filter tree. */
  sealed interface Node permits And, Or, Not, Compare, In, Between, All {}

  record And(Node left, Node right) implements Node {}

  record Or(Node left, Node right) implements Node {}

  record Not(Node operand) implements Node {}

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

  record In(String key, List<Literal> values, boolean negated) implements Node {
    In {
      values = List.copyOf(values);
    }
  }

  record Between(String key, Literal low, Literal high, boolean negated) implements Node {}

  /** A literal: its text, and whether it was written as an integer. */
  record Literal(String text, boolean integer) {
    Literal {
      requireNonNull(text, "text is null");
    }

    long number() {
      return Long.parseLong(text);
    }
  }

  enum Operator {
    EQUALS("="), NOT_EQUALS("!="), LESS("<"), LESS_OR_EQUAL("<="), GREATER(">"), GREATER_OR_EQUAL(">="), LIKE("like");

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

  static final int MAX_NESTING = 100;

  private enum Kind { WORD, QUOTED_KEY, STRING, INTEGER, OPERATOR, LEFT, RIGHT, COMMA, END }

  private record Token(Kind kind, String text, int position) {
    String describe() {
      return switch (kind) {
        case END -> "end of filter";
        case STRING -> "string '" + text + "'";
        default -> "'" + text + "'";
      };
    }
  }

  private final List<Token> tokens;
  private int next;
  private int depth;

  private HiveFilter(String text) throws MetaException {
    this.tokens = tokenize(text);
  }

  /** Parses {@code filter}; null or blank is {@link All}. */
  /** Checks one key of a parsed filter against what the caller can filter on. */
  @FunctionalInterface
  interface KeyCheck {
    void check(String key) throws MetaException;
  }

  /**
   * Checks a parsed filter before it is used: every key passes {@code keys}, every {@code like}
   * pattern compiles (else a MetaException "Error parsing {@code what}: …" naming the pattern).
   */
  static void validate(Node node, String what, KeyCheck keys) throws MetaException {
    if (node instanceof And and) {
      validate(and.left(), what, keys);
      validate(and.right(), what, keys);
    } else if (node instanceof Or or) {
      validate(or.left(), what, keys);
      validate(or.right(), what, keys);
    } else if (node instanceof Not not) {
      validate(not.operand(), what, keys);
    } else if (node instanceof Compare compare) {
      keys.check(compare.key());
      if (compare.operator() == Operator.LIKE) {
        try {
          Pattern.compile(compare.value().text());
        } catch (PatternSyntaxException e) {
          throw new MetaException("Error parsing " + what + ": invalid like pattern '" + compare.value().text() + "': " + e.getDescription());
        }
      }
    } else if (node instanceof In in) {
      keys.check(in.key());
    } else if (node instanceof Between between) {
      keys.check(between.key());
    }
  }

  static Node parse(String filter) throws MetaException {
    if (filter == null || filter.isBlank()) {
      return new All();
    }
    HiveFilter parser = new HiveFilter(filter);
    Node node = parser.or();
    parser.expect(Kind.END, "'and', 'or' or end of filter");
    return node;
  }

  private static MetaException error(int position, String expected, String found) {
    return new MetaException("Error parsing partition filter at position " + position + ": expected " + expected + " but found " + found);
  }

  private Token peek() {
    return tokens.get(next);
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
    Token token = peek();
    return token.kind() == Kind.WORD && token.text().equalsIgnoreCase(word);
  }

  private Node or() throws MetaException {
    Node node = and();
    while (keyword("or")) {
      next++;
      node = new Or(node, and());
    }
    return node;
  }

  private Node and() throws MetaException {
    Node node = not();
    while (keyword("and")) {
      next++;
      node = new And(node, not());
    }
    return node;
  }

  private Node not() throws MetaException {
    Token token = peek();
    if (++depth > MAX_NESTING) {
      throw error(token.position(), "at most " + MAX_NESTING + " levels of nesting", token.describe());
    }
    try {
      if (keyword("not")) {
        next++;
        return new Not(not());
      }
      if (token.kind() == Kind.LEFT) {
        next++;
        Node inner = or();
        expect(Kind.RIGHT, "')'");
        return inner;
      }
      return leaf();
    } finally {
      depth--;
    }
  }

  private Node leaf() throws MetaException {
    Token first = peek();
    if (isValueStart(first)) {
      Literal value = literal();
      Operator operator = operator();
      String key = key();
      return new Compare(key, operator.mirrored(), value);
    }
    String key = key();
    boolean negated = false;
    if (keyword("not")) {
      next++;
      negated = true;
      if (!keyword("between") && !keyword("in")) {
        throw error(peek().position(), "'between' or 'in' after 'not'", peek().describe());
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
      next++;
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
    return new Compare(key, operator(), literal());
  }

  private boolean isValueStart(Token token) {
    if (token.kind() == Kind.STRING || token.kind() == Kind.INTEGER) {
      return true;
    }
    return token.kind() == Kind.WORD && (keyword("date") || keyword("timestamp")) && tokens.get(next + 1).kind() == Kind.STRING;
  }

  private String key() throws MetaException {
    Token token = peek();
    if (token.kind() == Kind.QUOTED_KEY || (token.kind() == Kind.WORD && !isReserved(token.text()))) {
      next++;
      return token.text();
    }
    throw error(token.position(), "a partition key", token.describe());
  }

  private static boolean isReserved(String word) {
    return switch (word.toLowerCase(Locale.ROOT)) {
      case "and", "or", "not", "like", "between", "in" -> true;
      default -> false;
    };
  }

  private Operator operator() throws MetaException {
    Token token = peek();
    if (token.kind() == Kind.WORD && token.text().equalsIgnoreCase("like")) {
      next++;
      return Operator.LIKE;
    }
    if (token.kind() == Kind.OPERATOR) {
      Operator operator = switch (token.text()) {
        case "=" -> Operator.EQUALS;
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
    throw error(token.position(), "one of =, !=, <>, <, <=, >, >=, like", token.kind() == Kind.OPERATOR ? "unknown operator '" + token.text() + "'" : token.describe());
  }

  private Literal literal() throws MetaException {
    Token token = peek();
    if (token.kind() == Kind.WORD && (keyword("date") || keyword("timestamp")) && tokens.get(next + 1).kind() == Kind.STRING) {
      next += 2;
      return new Literal(tokens.get(next - 1).text(), false);
    }
    if (token.kind() == Kind.STRING) {
      next++;
      return new Literal(token.text(), false);
    }
    if (token.kind() == Kind.INTEGER) {
      next++;
      return new Literal(token.text(), true);
    }
    throw error(token.position(), "a string or integer value", token.describe());
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '$';
  }

  private static List<Token> tokenize(String text) throws MetaException {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      int position = i + 1;
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '(') {
        tokens.add(new Token(Kind.LEFT, "(", position));
        i++;
      } else if (c == ')') {
        tokens.add(new Token(Kind.RIGHT, ")", position));
        i++;
      } else if (c == ',') {
        tokens.add(new Token(Kind.COMMA, ",", position));
        i++;
      } else if (c == '\'' || c == '"' || c == '`') {
        StringBuilder value = new StringBuilder();
        int j = i + 1;
        while (true) {
          if (j >= text.length()) {
            throw error(text.length() + 1, c + " to close the " + (c == '`' ? "key" : "string") + " at position " + position, "end of filter");
          }
          char d = text.charAt(j);
          if (d == '\\' && j + 1 < text.length()) {
            value.append(text.charAt(j + 1));
            j += 2;
          } else if (d == c) {
            j++;
            break;
          } else {
            value.append(d);
            j++;
          }
        }
        if (c == '`' && value.length() == 0) {
          throw error(position, "a non-empty key", "'``'");
        }
        tokens.add(new Token(c == '`' ? Kind.QUOTED_KEY : Kind.STRING, value.toString(), position));
        i = j;
      } else if ("=!<>".indexOf(c) >= 0) {
        int j = i;
        while (j < text.length() && "=!<>".indexOf(text.charAt(j)) >= 0) {
          j++;
        }
        tokens.add(new Token(Kind.OPERATOR, text.substring(i, j), position));
        i = j;
      } else if (c == '-' || isWordChar(c)) {
        int j = i + 1;
        while (j < text.length() && isWordChar(text.charAt(j))) {
          j++;
        }
        String word = text.substring(i, j);
        String digits = c == '-' ? word.substring(1) : word;
        if (!digits.isEmpty() && digits.chars().allMatch(d -> d >= '0' && d <= '9')) {
          try {
            Long.parseLong(word);
          } catch (NumberFormatException e) {
            throw error(position, "an integer between -9223372036854775808 and 9223372036854775807", "'" + word + "'");
          }
          tokens.add(new Token(Kind.INTEGER, word, position));
        } else if (c == '-') {
          throw error(position, "a partition key or value", "'" + word + "'");
        } else {
          tokens.add(new Token(Kind.WORD, word, position));
        }
        i = j;
      } else {
        throw error(position, "a partition key, value, operator or parenthesis", "'" + c + "'");
      }
    }
    tokens.add(new Token(Kind.END, "", text.length() + 1));
    return tokens;
  }
}
