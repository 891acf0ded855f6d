package io.treecat.core.query.parser;

/**
 * How much query text one path query may hold and how deeply its predicates may nest: the bounds
 * that keep a hostile query from exhausting the heap or, through the parser's recursion (and the
 * planner's and evaluator's walks over the tree it builds), the stack. A chain of {@code and}s or
 * {@code or}s is one level however long (the tree holds it as one node with many children), so the
 * number of terms is bounded by the text alone, and every walk over it is linear.
 *
 * <p>Each limit is named in errors by its configuration key in the server ({@code query.*},
 * docs/configuration.md), so a client learns which limit it passed.
 *
 * @param maxTextBytes the longest query text, in UTF-8 bytes ({@value #MIN_TEXT_BYTES} to {@value #TEXT_BYTES_CEILING})
 * @param maxDepth the deepest nesting of parentheses and {@code not} together (1 to {@value #DEPTH_CEILING})
 */
public record QueryLimits(int maxTextBytes, int maxDepth) {
    public static final String MAX_LENGTH_KEY = "query.max-length";
    public static final String MAX_DEPTH_KEY = "query.max-depth";

    /**
     * The deepest nesting a limit may allow. The parser recurses three frames per level, the planner,
     * the renderer and the evaluator one or two; at this depth they all fit in half the 1 MiB stack a
     * server thread gets by default ({@code TestQueryLimits} runs them on a 512 KiB thread, where 1,000
     * levels overflow).
     */
    public static final int DEPTH_CEILING = 256;

    /** The shortest text limit: the queries TreeCat's own adapters build (a path and a few predicates) fit. */
    public static final int MIN_TEXT_BYTES = 4096;

    /** The longest text limit: 16 MiB, beyond what a gRPC message or an HTTP request line carries by default. */
    public static final int TEXT_BYTES_CEILING = 16 * 1024 * 1024;

    /** 64 KiB of text and 64 levels, what the parser has always allowed. */
    public static final QueryLimits DEFAULTS = new QueryLimits(64 * 1024, 64);

    public QueryLimits {
        if (maxTextBytes < MIN_TEXT_BYTES || maxTextBytes > TEXT_BYTES_CEILING) {
            throw new IllegalArgumentException(
                    "maxTextBytes must be between " + MIN_TEXT_BYTES + " and " + TEXT_BYTES_CEILING);
        }
        if (maxDepth < 1 || maxDepth > DEPTH_CEILING) {
            throw new IllegalArgumentException("maxDepth must be between 1 and " + DEPTH_CEILING);
        }
    }
}
