package io.treecat.core.query.parser;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;

/**
 * Builds the one error the parser throws. Users write queries across lines, so the message gives the
 * line and column; the context also carries the 1-based character position for tools.
 */
final class SyntaxErrors {
    private SyntaxErrors() {}

    /** A syntax error at the 0-based {@code offset} of {@code text}; {@code detail} is "expected X but found Y". */
    static CatalogException at(String text, int offset, String detail) {
        int[] lineAndColumn = lineAndColumn(text, offset);
        int line = lineAndColumn[0];
        int column = lineAndColumn[1];
        return new CatalogException(
                        ErrorCode.QUERY_SYNTAX_ERROR,
                        "Syntax error at line " + line + ", column " + column + ": " + detail)
                .with("position", offset + 1)
                .with("line", line)
                .with("column", column);
    }

    /** The 1-based line and column of the 0-based {@code offset}; lines end at {@code \n}. */
    static int[] lineAndColumn(String text, int offset) {
        int line = 1;
        int lineStart = 0;
        int end = Math.min(offset, text.length());
        for (int i = 0; i < end; i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new int[] {line, offset - lineStart + 1};
    }
}
