package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random partition filters for {@link PartitionedTable}, from Hive's filter grammar: comparisons ({@code =},
 * {@code ==}, {@code <>}, {@code !=}, {@code <}, {@code <=}, {@code >}, {@code >=}, {@code like} with {@code %} and
 * {@code _}), the literal on either side, {@code [not] between}, {@code [not] in}, {@code and}, {@code or} and
 * parentheses, over string, integer and date-like keys with literals of the key's type and of the other types. A few
 * filters are outside the grammar ({@code not} before a parenthesis, an unknown key, a missing operand): both servers
 * must refuse those alike.
 *
 * <p>The same seed gives the same filters, so a failing run is reproduced by its seed. The seed and count come from
 * {@code -Dhms.differential.seed} and {@code -Dhms.differential.filters}.
 */
final class FilterGenerator {
    private static final List<String> COMPARISONS = List.of("=", "<>", "!=", "<", "<=", ">", ">=", "like");
    private static final List<String> RARE_COMPARISONS = List.of("==", "<=>");
    private static final List<String> REGION_LITERALS = List.of(
            "eu",
            "EU",
            "us",
            "us_east",
            "usXeast",
            "50%off",
            "50_off",
            "zz",
            "",
            "u",
            "us_",
            "50",
            PartitionedTable.DEFAULT_PARTITION);
    private static final List<String> REGION_PATTERNS = List.of(
            "us%",
            "%east",
            "us_east",
            "u_",
            "%",
            "%_%",
            "50%",
            "%off",
            "50_off",
            "50%off",
            "e%",
            "E%",
            "%s%",
            "_s",
            "__",
            "%u%",
            "us\\_east",
            "50\\%off",
            "%X%",
            "__HIVE%");
    private static final List<String> YEARS = List.of("-1", "0", "9", "10", "100", "2023", "2024", "2025");
    private static final List<String> DAYS = List.of(
            "2023-12-31", "2024-01-01", "2024-01-15", "2024-02-29", "2024-01", "2024", "2024-01-10", "2024-13-01");
    private static final List<String> DAY_PATTERNS =
            List.of("2024%", "%-01-%", "2024-01-__", "%29", "2023%", "____-__-01");

    private final Random random;

    FilterGenerator(long seed) {
        this.random = new Random(seed);
    }

    /**
     * Filters every run checks before the random ones, whatever the seed: reported bugs, so that they stay fixed. The
     * first is the reported one: {@code like} with {@code %} together with {@code <>} returned nothing from TreeCat.
     */
    static List<String> regressions() {
        return List.of(
                "region like 'us%' and region <> 'us'",
                "region like '%east' and yr <> 2023",
                "region <> 'eu' and region like '%o%'",
                "dt like '2024-01%' and region <> 'us'",
                "region like 'us_east'",
                "yr > 9",
                "yr < 10",
                "yr between 9 and 2023",
                "dt between '2024-01-01' and '2024-01-31'",
                "(region) in ('eu', 'us')",
                "region in ('eu', 'us')",
                "(yr) not in (9, 10)",
                "region = '" + PartitionedTable.DEFAULT_PARTITION + "'",
                "yr <> 2024",
                "region <> 'us_east'",
                "(region) not in ('us_east', 'eu')",
                "region = ''",
                "region <> ''",
                "'' < region",
                "yr == 9",
                "dt > 2023-12-31",
                "dt = DATE '2024-02-30'",
                "yr <= '2024'",
                "dt > 0",
                "'x' like region",
                "not (region = 'eu')",
                "region like 'us\\_east'",
                "yr <=> 9",
                "region like '__HIVE%'");
    }

    /**
     * Filters with text after a complete filter, and the part Hive 4.0.1 reads: its grammar has no end-of-input rule,
     * so it ignores the rest ({@code yr > 2024-01} is {@code yr > 2024}). TreeCat refuses them instead
     * ({@link KnownHiveDivergences}).
     */
    static java.util.Map<String, String> trailingText() {
        return java.util.Map.of(
                "yr = 9 dt", "yr = 9",
                "yr > 2024-01", "yr > 2024",
                "region = 'eu' region = 'us'", "region = 'eu'",
                "(yr) in (9) )", "(yr) in (9)");
    }

    /** The next {@code count} random filters. */
    List<String> next(int count) {
        List<String> filters = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            filters.add(next());
        }
        return filters;
    }

    String next() {
        if (random.nextInt(40) == 0) {
            return invalid();
        }
        return expression(random.nextInt(3));
    }

    private String expression(int depth) {
        if (depth == 0 || random.nextInt(10) < 3) {
            return condition();
        }
        String connective = keyword(random.nextBoolean() ? "and" : "or");
        int operands = 2 + random.nextInt(2);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < operands; i++) {
            if (i > 0) {
                text.append(' ').append(connective).append(' ');
            }
            String operand = expression(depth - 1);
            boolean compound = operand.contains(" and ")
                    || operand.contains(" or ")
                    || operand.contains(" AND ")
                    || operand.contains(" OR ");
            text.append(compound || random.nextInt(6) == 0 ? "(" + operand + ")" : operand);
        }
        return text.toString();
    }

    private String condition() {
        String key = pick(PartitionedTable.KEYS);
        int form = random.nextInt(20);
        if (form < 14) {
            return comparison(key);
        }
        if (form < 17) {
            return key + " " + (random.nextInt(4) == 0 ? keyword("not") + " " : "") + keyword("between") + " "
                    + literal(key) + " " + keyword("and") + " " + literal(key);
        }
        StringBuilder in = new StringBuilder();
        // Hive's grammar wants the key in parentheses; clients also send it without.
        in.append(random.nextInt(4) == 0 ? key : "(" + key + ")");
        if (random.nextInt(3) == 0) {
            in.append(' ').append(keyword("not"));
        }
        in.append(' ').append(keyword("in")).append(" (");
        int values = 1 + random.nextInt(3);
        for (int i = 0; i < values; i++) {
            in.append(i > 0 ? ", " : "").append(literal(key));
        }
        return in.append(')').toString();
    }

    private String comparison(String key) {
        String operator = random.nextInt(25) == 0 ? pick(RARE_COMPARISONS) : pick(COMPARISONS);
        String literal;
        if (operator.equals("like")) {
            operator = keyword(operator);
            literal = switch (key) {
                case "region" -> quote(pick(REGION_PATTERNS));
                case "dt" -> quote(pick(DAY_PATTERNS));
                default -> random.nextBoolean() ? quote(pick(List.of("1%", "%0", "20%", "_"))) : pick(YEARS);
            };
        } else {
            literal = literal(key);
        }
        return random.nextInt(8) == 0 ? literal + " " + operator + " " + key : key + " " + operator + " " + literal;
    }

    /** A literal for {@code key}: mostly of its type, sometimes of another (a quoted number, a bare number for a string). */
    private String literal(String key) {
        int kind = random.nextInt(10);
        switch (key) {
            case "yr":
                return kind < 7 ? pick(YEARS) : quote(pick(YEARS));
            case "dt":
                if (kind == 0) {
                    return keyword("date") + " " + quote(pick(DAYS.subList(0, 4)));
                }
                if (kind == 1) {
                    return pick(DAYS.subList(0, 4));
                }
                return kind == 2 ? pick(YEARS) : quote(pick(DAYS));
            default:
                return kind == 0 ? pick(YEARS) : quote(pick(REGION_LITERALS));
        }
    }

    /** Outside the grammar, or naming what the table does not have. */
    private String invalid() {
        return switch (random.nextInt(6)) {
            case 0 -> keyword("not") + " (" + condition() + ")";
            case 1 -> "nokey = 'eu'";
            case 2 -> "region = ";
            case 3 -> "region = 'eu' " + keyword("and");
            case 4 -> "(" + condition();
            default -> "payload = 'x'";
        };
    }

    /** Single quotes mostly, double sometimes: the grammar takes both. */
    private String quote(String value) {
        return random.nextInt(8) == 0 ? "\"" + value + "\"" : "'" + value + "'";
    }

    /** Keywords in lower or upper case: the grammar ignores case. */
    private String keyword(String keyword) {
        return random.nextInt(3) == 0 ? keyword.toUpperCase(java.util.Locale.ROOT) : keyword;
    }

    private <T> T pick(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }
}
