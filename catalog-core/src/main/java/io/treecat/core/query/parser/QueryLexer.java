package io.treecat.core.query.parser;

import io.treecat.core.query.tree.ComparisonOperator;
import java.util.Locale;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * Splits query text into tokens on demand. The parser pulls one token at a time, so an error is
 * always reported at the first place the text goes wrong, whether that is a bad token or a good token
 * in the wrong place.
 */
final class QueryLexer {
    private final String text;
    private int offset;

    QueryLexer(String text) {
        this.text = text;
    }

    Token next() {
        skipWhitespace();
        int start = offset;
        if (offset >= text.length()) {
            return Token.simple(TokenKind.END, "", start);
        }
        char c = text.charAt(offset);
        switch (c) {
            case '/':
                return single(TokenKind.SLASH);
            case '*':
                return single(TokenKind.STAR);
            case '[':
                return single(TokenKind.LEFT_BRACKET);
            case ']':
                return single(TokenKind.RIGHT_BRACKET);
            case '(':
                return single(TokenKind.LEFT_PAREN);
            case ')':
                return single(TokenKind.RIGHT_PAREN);
            case ',':
                return single(TokenKind.COMMA);
            case '.':
                return single(TokenKind.DOT);
            case '\'':
            case '"':
                String content = readQuoted(c);
                return new Token(TokenKind.STRING, text.substring(start, offset), start, content, null, null);
            case '`':
                return quotedName(start);
            default:
                break;
        }
        if (isOperatorChar(c)) {
            return operator(start);
        }
        if (c == '-' || isDigit(c)) {
            return number(start);
        }
        if (isNameStart(c)) {
            while (offset < text.length() && isNamePart(text.charAt(offset))) {
                offset++;
            }
            String word = text.substring(start, offset);
            TokenKind kind = TokenKind.ofWord(word);
            return new Token(kind, word, start, kind == TokenKind.NAME ? word : null, null, null);
        }
        throw SyntaxErrors.at(text, start, "expected a token but found " + describeCharacter(start));
    }

    private Token single(TokenKind kind) {
        int start = offset++;
        return Token.simple(kind, text.substring(start, offset), start);
    }

    private Token quotedName(int start) {
        String name = readQuoted('`');
        String source = text.substring(start, offset);
        if (name.isEmpty()) {
            throw SyntaxErrors.at(text, start, "expected a field name but found the empty name ``");
        }
        return new Token(TokenKind.QUOTED_NAME, source, start, name, null, null);
    }

    private Token operator(int start) {
        while (offset < text.length() && isOperatorChar(text.charAt(offset))) {
            offset++;
        }
        String symbol = text.substring(start, offset);
        ComparisonOperator operator = ComparisonOperator.fromSymbol(symbol);
        if (operator == null) {
            throw SyntaxErrors.at(
                    text, start, "expected one of =, !=, <, <=, >, >= but found unknown operator '" + symbol + "'");
        }
        return new Token(TokenKind.OPERATOR, symbol, start, null, null, operator);
    }

    private Token number(int start) {
        if (text.charAt(offset) == '-') {
            offset++;
            if (offset >= text.length() || !isDigit(text.charAt(offset))) {
                throw SyntaxErrors.at(text, start, "expected a digit after '-' but found " + describeAt(offset));
            }
        }
        skipDigits();
        boolean decimal = false;
        if (offset + 1 < text.length() && text.charAt(offset) == '.' && isDigit(text.charAt(offset + 1))) {
            decimal = true;
            offset++;
            skipDigits();
        }
        if (offset < text.length() && (text.charAt(offset) == 'e' || text.charAt(offset) == 'E')) {
            int exponent = offset++;
            if (offset < text.length() && (text.charAt(offset) == '+' || text.charAt(offset) == '-')) {
                offset++;
            }
            if (offset >= text.length() || !isDigit(text.charAt(offset))) {
                throw SyntaxErrors.at(
                        text,
                        offset,
                        "expected the digits of the exponent of '" + text.substring(start, offset) + "' but found "
                                + describeAt(offset));
            }
            skipDigits();
            decimal = exponent > start;
        }
        String source = text.substring(start, offset);
        if (offset < text.length() && isNameStart(text.charAt(offset))) {
            throw SyntaxErrors.at(
                    text,
                    offset,
                    "expected an operator or delimiter after number '" + source + "' but found "
                            + describeCharacter(offset));
        }
        BsonValue value = decimal ? parseDecimal(source, start) : parseInteger(source, start);
        return new Token(decimal ? TokenKind.DECIMAL : TokenKind.INTEGER, source, start, null, value, null);
    }

    private BsonValue parseInteger(String source, int start) {
        long value;
        try {
            value = Long.parseLong(source);
        } catch (NumberFormatException e) {
            throw SyntaxErrors.at(
                    text,
                    start,
                    "expected an integer between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE + " but found '"
                            + abbreviate(source) + "'");
        }
        return value == (int) value ? new BsonInt32((int) value) : new BsonInt64(value);
    }

    private BsonValue parseDecimal(String source, int start) {
        double value = Double.parseDouble(source);
        if (Double.isInfinite(value)) {
            throw SyntaxErrors.at(
                    text,
                    start,
                    "expected a decimal within the range of a double but found '" + abbreviate(source) + "'");
        }
        return new BsonDouble(value);
    }

    /** Reads a string or backtick name starting at the opening quote; returns its content with escapes applied. */
    private String readQuoted(char quote) {
        int start = offset++;
        StringBuilder content = new StringBuilder();
        while (true) {
            if (offset >= text.length()) {
                throw SyntaxErrors.at(
                        text,
                        offset,
                        "expected " + quote + " to close the " + (quote == '`' ? "field name" : "string") + " at "
                                + lineAndColumn(start) + " but found end of query");
            }
            char c = text.charAt(offset);
            if (c == quote) {
                offset++;
                return content.toString();
            }
            if (c != '\\') {
                content.append(c);
                offset++;
                continue;
            }
            int escape = offset;
            if (offset + 1 >= text.length()) {
                throw SyntaxErrors.at(text, escape, "expected an escape after '\\' but found end of query");
            }
            char code = text.charAt(offset + 1);
            offset += 2;
            switch (code) {
                case '\'', '"', '\\', '`' -> content.append(code);
                case 'n' -> content.append('\n');
                case 't' -> content.append('\t');
                case 'u' -> content.append(readUnicodeEscape(escape));
                default ->
                    throw SyntaxErrors.at(
                            text,
                            escape,
                            "expected one of the escapes \\' \\\" \\` \\\\ \\n \\t \\uXXXX but found '\\"
                                    + new String(Character.toChars(text.codePointAt(escape + 1))) + "'");
            }
        }
    }

    private char readUnicodeEscape(int escape) {
        int end = offset + 4;
        if (end > text.length()) {
            throw badUnicodeEscape(escape, text.length());
        }
        int value = 0;
        for (int i = offset; i < end; i++) {
            char c = text.charAt(i);
            int digit = c < 0x80 ? Character.digit(c, 16) : -1;
            if (digit < 0) {
                throw badUnicodeEscape(escape, i + 1);
            }
            value = value * 16 + digit;
        }
        offset = end;
        return (char) value;
    }

    private RuntimeException badUnicodeEscape(int escape, int end) {
        return SyntaxErrors.at(
                text,
                escape,
                "expected four hex digits after '\\u' but found '" + abbreviate(text.substring(escape, end)) + "'");
    }

    private String lineAndColumn(int offset) {
        int[] lineAndColumn = SyntaxErrors.lineAndColumn(text, offset);
        return "line " + lineAndColumn[0] + ", column " + lineAndColumn[1];
    }

    private void skipWhitespace() {
        while (offset < text.length()) {
            char c = text.charAt(offset);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
                return;
            }
            offset++;
        }
    }

    private void skipDigits() {
        while (offset < text.length() && isDigit(text.charAt(offset))) {
            offset++;
        }
    }

    private String describeAt(int at) {
        return at >= text.length() ? "end of query" : describeCharacter(at);
    }

    /** Names the character at {@code at}, spelling out ones that would be invisible in a message. */
    private String describeCharacter(int at) {
        int codePoint = text.codePointAt(at);
        if (Character.isISOControl(codePoint)
                || Character.isWhitespace(codePoint)
                || Character.isSpaceChar(codePoint)
                || Character.getType(codePoint) == Character.SURROGATE
                || Character.getType(codePoint) == Character.FORMAT) {
            return String.format(Locale.ROOT, "character U+%04X", codePoint);
        }
        return "'" + new String(Character.toChars(codePoint)) + "'";
    }

    private static String abbreviate(String source) {
        return source.length() > 40 ? source.substring(0, 40) + "…" : source;
    }

    private static boolean isOperatorChar(char c) {
        return c == '=' || c == '!' || c == '<' || c == '>' || c == '~';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isNameStart(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    }

    static boolean isNamePart(char c) {
        return isNameStart(c) || isDigit(c) || c == '$' || c == '-';
    }
}
