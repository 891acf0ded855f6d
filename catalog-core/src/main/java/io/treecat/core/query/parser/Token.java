package io.treecat.core.query.parser;

import static java.util.Objects.requireNonNull;

import io.treecat.core.query.tree.ComparisonOperator;
import org.bson.BsonValue;

/**
 * One token.
 *
 * @param kind what the token is
 * @param source the token exactly as written, for error messages
 * @param offset the 0-based offset of its first character in the query text
 * @param content the decoded text of a string or name (escapes applied), else null
 * @param number the value of an integer or decimal, else null
 * @param operator the operator of an {@link TokenKind#OPERATOR} token, else null
 */
record Token(TokenKind kind, String source, int offset, String content, BsonValue number, ComparisonOperator operator) {
    private static final int MAX_SHOWN = 40;

    Token {
        requireNonNull(kind, "kind is null");
        requireNonNull(source, "source is null");
    }

    static Token simple(TokenKind kind, String source, int offset) {
        return new Token(kind, source, offset, null, null, null);
    }

    /** How an error message names the token. */
    String describe() {
        if (kind == TokenKind.END) {
            return "end of query";
        }
        String shown = source.length() > MAX_SHOWN ? source.substring(0, MAX_SHOWN) + "…" : source;
        if (kind == TokenKind.STRING) {
            return "string " + shown;
        }
        return "'" + shown + "'";
    }
}
