/**
 * The hand-written recursive-descent parser of the path query language (DESIGN.md §4,
 * docs/query-language.md). {@link io.treecat.core.query.parser.QueryParser} is the only public
 * entry; every failure is a {@code QUERY_SYNTAX_ERROR} naming the line, column and token.
 */
package io.treecat.core.query.parser;
