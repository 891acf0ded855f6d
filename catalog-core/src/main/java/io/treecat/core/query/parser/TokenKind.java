package io.treecat.core.query.parser;

/** The kinds of token the lexer produces. */
enum TokenKind {
    SLASH,
    STAR,
    LEFT_BRACKET,
    RIGHT_BRACKET,
    LEFT_PAREN,
    RIGHT_PAREN,
    COMMA,
    DOT,
    OPERATOR,
    STRING,
    INTEGER,
    DECIMAL,
    NAME,
    QUOTED_NAME,
    AND,
    OR,
    NOT,
    IN,
    TRUE,
    FALSE,
    NULL,
    STARTSWITH,
    ENDSWITH,
    EXISTS,
    END;

    /** The keyword kind of a bare word, or {@link #NAME} when it is not a keyword. */
    static TokenKind ofWord(String word) {
        return switch (word.toLowerCase(java.util.Locale.ROOT)) {
            case "and" -> AND;
            case "or" -> OR;
            case "not" -> NOT;
            case "in" -> IN;
            case "true" -> TRUE;
            case "false" -> FALSE;
            case "null" -> NULL;
            case "startswith" -> STARTSWITH;
            case "endswith" -> ENDSWITH;
            case "exists" -> EXISTS;
            default -> NAME;
        };
    }
}
