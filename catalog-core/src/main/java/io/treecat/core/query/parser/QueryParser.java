package io.treecat.core.query.parser;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.query.tree.Expr;
import io.treecat.core.query.tree.Expr.And;
import io.treecat.core.query.tree.Expr.Comparison;
import io.treecat.core.query.tree.Expr.Exists;
import io.treecat.core.query.tree.Expr.InList;
import io.treecat.core.query.tree.Expr.Not;
import io.treecat.core.query.tree.Expr.Or;
import io.treecat.core.query.tree.Expr.StringMatch;
import io.treecat.core.query.tree.Operand;
import io.treecat.core.query.tree.Operand.FieldRef;
import io.treecat.core.query.tree.Operand.Literal;
import io.treecat.core.query.tree.Query;
import io.treecat.core.query.tree.Step;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonNull;
import org.bson.BsonString;

/**
 * Parses query text into a {@link Query}, by recursive descent over the grammar of
 * docs/query-language.md, with one token of lookahead.
 *
 * <p>Every failure, on any input, is a {@link CatalogException} with {@link
 * ErrorCode#QUERY_SYNTAX_ERROR} whose message reads {@code Syntax error at line L, column C: expected
 * X but found Y} and whose context carries {@code position} (1-based character offset), {@code line}
 * and {@code column}. Text and nesting are bounded ({@link QueryLimits}) so that a hostile query can
 * neither exhaust the stack nor the heap; an error for a limit also carries {@code limit} (its
 * configuration key) and {@code max}.
 */
public final class QueryParser {
    /** The longest query text by default, in UTF-8 bytes. */
    public static final int MAX_TEXT_BYTES = QueryLimits.DEFAULTS.maxTextBytes();
    /** The deepest nesting of parentheses and {@code not} by default. */
    public static final int MAX_NESTING_DEPTH = QueryLimits.DEFAULTS.maxDepth();

    private final String text;
    private final QueryLexer lexer;
    private final int maxDepth;
    private Token token;

    private QueryParser(String text, int maxDepth) {
        this.text = text;
        this.lexer = new QueryLexer(text);
        this.maxDepth = maxDepth;
    }

    /** Parses {@code text} within the default limits ({@link QueryLimits#DEFAULTS}). */
    public static Query parse(String text) {
        return parse(text, QueryLimits.DEFAULTS);
    }

    /** Parses {@code text} within {@code limits}. */
    public static Query parse(String text, QueryLimits limits) {
        if (text == null) {
            throw new CatalogException(
                            ErrorCode.QUERY_SYNTAX_ERROR,
                            "Syntax error at line 1, column 1: expected '/' but found no query text")
                    .with("position", 1)
                    .with("line", 1)
                    .with("column", 1);
        }
        checkLength(text, limits.maxTextBytes());
        return new QueryParser(text, limits.maxDepth()).query();
    }

    private static void checkLength(String text, int maxBytes) {
        if (text.length() <= maxBytes / 3) {
            return;
        }
        int bytes = 0;
        for (int i = 0; i < text.length(); ) {
            int codePoint = text.codePointAt(i);
            bytes += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes > maxBytes) {
                throw SyntaxErrors.at(
                                text,
                                i,
                                "expected at most " + maxBytes + " bytes of query text (" + QueryLimits.MAX_LENGTH_KEY
                                        + ") but found more")
                        .with("limit", QueryLimits.MAX_LENGTH_KEY)
                        .with("max", maxBytes);
            }
            i += Character.charCount(codePoint);
        }
    }

    private Query query() {
        advance();
        if (token.kind() != TokenKind.SLASH) {
            throw expected("'/'");
        }
        List<Step> steps = new ArrayList<>();
        while (token.kind() == TokenKind.SLASH) {
            int position = token.offset() + 1;
            advance();
            steps.add(step(position));
            if (token.kind() != TokenKind.SLASH && token.kind() != TokenKind.END) {
                throw expected("'/' or end of query");
            }
        }
        return new Query(steps, text);
    }

    private Step step(int position) {
        if (token.kind() == TokenKind.STAR) {
            advance();
            return new Step.Wildcard(position);
        }
        if (token.kind() != TokenKind.LEFT_BRACKET) {
            throw expected("'*' or '[' after '/'");
        }
        advance();
        if (token.kind() == TokenKind.RIGHT_BRACKET) {
            throw expected("an expression");
        }
        Expr expr = or(0);
        expect(TokenKind.RIGHT_BRACKET, "']'");
        return new Step.Filter(expr, position);
    }

    private Expr or(int depth) {
        Expr first = and(depth);
        if (token.kind() != TokenKind.OR) {
            return first;
        }
        List<Expr> children = new ArrayList<>();
        children.add(first);
        while (token.kind() == TokenKind.OR) {
            advance();
            children.add(and(depth));
        }
        return new Or(children);
    }

    private Expr and(int depth) {
        Expr first = not(depth);
        if (token.kind() != TokenKind.AND) {
            return first;
        }
        List<Expr> children = new ArrayList<>();
        children.add(first);
        while (token.kind() == TokenKind.AND) {
            advance();
            children.add(not(depth));
        }
        return new And(children);
    }

    private Expr not(int depth) {
        switch (token.kind()) {
            case NOT -> {
                checkDepth(depth + 1);
                advance();
                return new Not(not(depth + 1));
            }
            case LEFT_PAREN -> {
                checkDepth(depth + 1);
                advance();
                Expr inner = or(depth + 1);
                expect(TokenKind.RIGHT_PAREN, "')'");
                return inner;
            }
            case STARTSWITH, ENDSWITH -> {
                return stringMatch();
            }
            case EXISTS -> {
                advance();
                expect(TokenKind.LEFT_PAREN, "'(' after 'exists'");
                FieldRef field = field("a field");
                expect(TokenKind.RIGHT_PAREN, "')'");
                return new Exists(field);
            }
            default -> {
                if (!startsOperand()) {
                    throw expected("an expression");
                }
                return comparison();
            }
        }
    }

    private Expr stringMatch() {
        StringMatch.Kind kind =
                token.kind() == TokenKind.STARTSWITH ? StringMatch.Kind.STARTS_WITH : StringMatch.Kind.ENDS_WITH;
        advance();
        expect(TokenKind.LEFT_PAREN, "'(' after '" + kind.keyword() + "'");
        FieldRef field = field("a field");
        expect(TokenKind.COMMA, "','");
        if (token.kind() != TokenKind.STRING) {
            throw expected("a string");
        }
        String value = token.content();
        advance();
        expect(TokenKind.RIGHT_PAREN, "')'");
        return new StringMatch(kind, field, value);
    }

    private Expr comparison() {
        Token first = token;
        Operand left = operand();
        if (first.kind() == TokenKind.NAME && token.kind() == TokenKind.LEFT_PAREN) {
            throw SyntaxErrors.at(
                    text,
                    first.offset(),
                    "expected 'startswith', 'endswith' or 'exists' but found unknown function '" + first.source()
                            + "'");
        }
        if (token.kind() == TokenKind.IN) {
            advance();
            expect(TokenKind.LEFT_PAREN, "'(' after 'in'");
            List<Literal> values = new ArrayList<>();
            values.add(literal());
            while (token.kind() == TokenKind.COMMA) {
                advance();
                values.add(literal());
            }
            expect(TokenKind.RIGHT_PAREN, "',' or ')'");
            return new InList(left, values);
        }
        if (token.kind() != TokenKind.OPERATOR) {
            throw expected("a comparison operator or 'in'");
        }
        Token operator = token;
        advance();
        if (!startsOperand()) {
            throw expected("a field or literal");
        }
        return new Comparison(left, operator.operator(), operand());
    }

    private boolean startsOperand() {
        return switch (token.kind()) {
            case NAME, QUOTED_NAME, STRING, INTEGER, DECIMAL, TRUE, FALSE, NULL -> true;
            default -> false;
        };
    }

    private Operand operand() {
        if (token.kind() == TokenKind.NAME || token.kind() == TokenKind.QUOTED_NAME) {
            return field("a field");
        }
        return literal();
    }

    private FieldRef field(String what) {
        List<String> names = new ArrayList<>();
        names.add(name(what));
        while (token.kind() == TokenKind.DOT) {
            advance();
            names.add(name("a field name after '.'"));
        }
        return new FieldRef(names);
    }

    private String name(String what) {
        if (token.kind() != TokenKind.NAME && token.kind() != TokenKind.QUOTED_NAME) {
            throw expected(what);
        }
        String name = token.content();
        advance();
        return name;
    }

    private Literal literal() {
        Literal literal = switch (token.kind()) {
            case STRING -> new Literal(new BsonString(token.content()));
            case INTEGER, DECIMAL -> new Literal(token.number());
            case TRUE -> new Literal(BsonBoolean.TRUE);
            case FALSE -> new Literal(BsonBoolean.FALSE);
            case NULL -> new Literal(BsonNull.VALUE);
            default -> throw expected("a literal");
        };
        advance();
        return literal;
    }

    private void checkDepth(int depth) {
        if (depth > maxDepth) {
            throw expected("at most " + maxDepth + " levels of nesting (" + QueryLimits.MAX_DEPTH_KEY + ")")
                    .with("limit", QueryLimits.MAX_DEPTH_KEY)
                    .with("max", maxDepth);
        }
    }

    private void expect(TokenKind kind, String what) {
        if (token.kind() != kind) {
            throw expected(what);
        }
        advance();
    }

    private void advance() {
        token = lexer.next();
    }

    private CatalogException expected(String what) {
        return SyntaxErrors.at(text, token.offset(), "expected " + what + " but found " + token.describe());
    }
}
