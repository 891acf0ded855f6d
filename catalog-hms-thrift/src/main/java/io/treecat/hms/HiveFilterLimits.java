package io.treecat.hms;

/**
 * How long a Hive filter ({@code get_partitions_by_filter}, {@code get_num_partitions_by_filter},
 * {@code get_table_names_by_filter}, {@code get_partitions_spec_by_filter}…) may be and how deeply its
 * {@code and}s and {@code or}s may alternate. A chain of one operator is one level however long, and
 * however many parentheses group it: Spark sends {@code ((a = 1 or a = 2) or a = 3) …}, one
 * parenthesis per term, and Hive accepts it. Over a limit, a {@code MetaException} names the limit's
 * configuration key ({@code hms.filter.*}, docs/configuration.md).
 *
 * @param maxLength the longest filter, in characters (1 to {@value #LENGTH_CEILING})
 * @param maxDepth the deepest alternation of {@code and} and {@code or} (1 to {@value #DEPTH_CEILING})
 */
public record HiveFilterLimits(int maxLength, int maxDepth) {
    public static final String MAX_LENGTH_KEY = "hms.filter.max-length";
    public static final String MAX_DEPTH_KEY = "hms.filter.max-depth";

    /**
     * The deepest alternation a limit may allow: the walks over a parsed filter (binding, pushdown,
     * evaluation) recurse once or twice per level, and at this depth stay well inside the stack of a
     * Thrift worker thread ({@code TestHiveFilterLimits} runs them on a 512 KiB thread).
     */
    public static final int DEPTH_CEILING = 2000;

    /** 64 MiB: the tokens of a filter take some ten times its length in memory while it is parsed. */
    public static final int LENGTH_CEILING = 64 * 1024 * 1024;

    /**
     * 1 MiB and 1,000 levels: more than engines send (Spark turns an {@code in} of more than 1,000 values
     * into a range, and 10,000 equalities are some 200 KiB).
     */
    public static final HiveFilterLimits DEFAULTS = new HiveFilterLimits(1024 * 1024, 1000);

    public HiveFilterLimits {
        if (maxLength < 1 || maxLength > LENGTH_CEILING) {
            throw new IllegalArgumentException("maxLength must be between 1 and " + LENGTH_CEILING);
        }
        if (maxDepth < 1 || maxDepth > DEPTH_CEILING) {
            throw new IllegalArgumentException("maxDepth must be between 1 and " + DEPTH_CEILING);
        }
    }
}
