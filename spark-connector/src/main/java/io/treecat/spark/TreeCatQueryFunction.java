package io.treecat.spark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The table-valued function {@code treecat_query('<path query>' [, vid [, 'json']])}: the objects the path query
 * matches, as rows ({@link PathQueryTable}). It reads at one vid: the given one, else the newest when the
 * statement is analysed. The value's schema is inferred from the first page of rows (up to
 * {@value PathQueryTable#SAMPLE} objects); with {@code 'json'} the value is its JSON text instead.
 *
 * <p>The server is the one of the session's TreeCat catalog: {@code spark.sql.treecat.catalog} names it, or the
 * only catalog configured as {@link TreeCatCatalog}. A query the server refuses (a syntax error, an unknown or
 * expired vid) fails the statement's analysis with an {@link AnalysisException} carrying the server's message
 * and the parser's position.
 */
final class TreeCatQueryFunction {
    static final String NAME = "treecat_query";
    /** The session setting naming the TreeCat catalog whose server answers {@code treecat_query}. */
    static final String CATALOG_CONF = "spark.sql.treecat.catalog";

    private TreeCatQueryFunction() {}

    static LogicalPlan build(Seq<Expression> arguments) {
        List<Expression> args = CollectionConverters.asJava(arguments);
        if (args.isEmpty() || args.size() > 3) {
            throw analysis(NAME + " takes a path query, and optionally a vid and 'json': " + NAME
                    + "('/[obj_id=''retail'']/*' [, 1234 [, 'json']])");
        }
        String query = string(args.get(0), "the path query");
        if (query == null || query.isBlank()) {
            throw analysis(NAME + ": the path query is empty");
        }
        OptionalLong vid = OptionalLong.empty();
        if (args.size() > 1) {
            Object value = constant(args.get(1), "the vid");
            if (value instanceof Number number && !(value instanceof Double || value instanceof Float)) {
                vid = OptionalLong.of(number.longValue());
            } else if (value != null) {
                throw analysis(NAME + ": the vid must be an integer or NULL, not "
                        + args.get(1).sql());
            }
        }
        boolean valueAsJson = false;
        if (args.size() > 2) {
            String mode = string(args.get(2), "the value's form");
            if (mode == null || !(mode.equalsIgnoreCase("json") || mode.equalsIgnoreCase("struct"))) {
                throw analysis(NAME + ": the third argument is 'json' or 'struct', not "
                        + args.get(2).sql());
            }
            valueAsJson = mode.equalsIgnoreCase("json");
        }

        SparkSession spark = SparkSession.active();
        NativeQueryClient client = client(spark);
        PathQueryTable table;
        try {
            table = PathQueryTable.sampled(spark, client, NAME + "(" + query + ")", List.of(query), vid, valueAsJson);
        } catch (NativeQueryClient.Refused e) {
            throw refused(query, e);
        }
        return DataSourceV2Relation.create(table, Option.empty(), Option.empty(), CaseInsensitiveStringMap.empty());
    }

    /** The server of the session's TreeCat catalog, with its bearer token if it has one. */
    static NativeQueryClient client(SparkSession spark) {
        Map<String, String> conf = CollectionConverters.asJava(spark.conf().getAll());
        String catalog = conf.get(CATALOG_CONF);
        if (catalog == null) {
            List<String> candidates = new ArrayList<>();
            conf.forEach((key, value) -> {
                if (key.startsWith("spark.sql.catalog.")
                        && key.indexOf('.', "spark.sql.catalog.".length()) < 0
                        && value.equals(TreeCatCatalog.class.getName())) {
                    candidates.add(key.substring("spark.sql.catalog.".length()));
                }
            });
            if (candidates.size() != 1) {
                throw analysis(String.format(
                        "%s: set %s to the TreeCat catalog whose server answers it (%s)",
                        NAME,
                        CATALOG_CONF,
                        candidates.isEmpty()
                                ? "no catalog is a " + TreeCatCatalog.class.getName()
                                : "several are: "
                                        + String.join(
                                                ", ",
                                                candidates.stream().sorted().toList())));
            }
            catalog = candidates.get(0);
        }
        String prefix = "spark.sql.catalog." + catalog + ".";
        if (conf.get(prefix + "uri") == null) {
            throw analysis(NAME + ": catalog " + catalog + " has no uri (" + prefix + "uri)");
        }
        Map<String, String> properties = new HashMap<>();
        conf.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                properties.put(key.substring(prefix.length()), value);
            }
        });
        return NativeQueryClient.forCatalog(properties);
    }

    /** Throws the {@link AnalysisException} for a query the server refused (declared as returned, for {@code throw}). */
    private static RuntimeException refused(String query, NativeQueryClient.Refused e) {
        OptionalLong line = e.contextNumber("line");
        OptionalLong position = e.contextNumber("position");
        StringBuilder message = new StringBuilder(NAME).append(": TreeCat refused the path query ");
        message.append(query).append(": ").append(e.getMessage());
        if (position.isPresent() && !e.getMessage().contains("position")) {
            message.append(" (position ").append(position.getAsLong()).append(')');
        }
        throw raise(new AnalysisException(
                message.toString(),
                line.isPresent() ? Option.apply((Object) (int) line.getAsLong()) : Option.empty(),
                position.isPresent() ? Option.apply((Object) (int) position.getAsLong()) : Option.empty(),
                Option.apply(e),
                Option.empty(),
                scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
                new QueryContext[0]));
    }

    /** Throws an {@link AnalysisException} with {@code message} (declared as returned, for {@code throw}). */
    private static RuntimeException analysis(String message) {
        throw raise(new AnalysisException(
                message,
                Option.empty(),
                Option.empty(),
                Option.empty(),
                Option.empty(),
                scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
                new QueryContext[0]));
    }

    /**
     * Throws a checked exception unchecked: Spark calls the builder from Scala, where an {@link AnalysisException}
     * (checked in Java) is how a failed analysis ends.
     */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException raise(Throwable failure) throws E {
        throw (E) failure;
    }

    private static Object constant(Expression expression, String what) {
        if (!expression.foldable()) {
            throw analysis(NAME + ": " + what + " must be a constant, not " + expression.sql());
        }
        return expression.eval(null);
    }

    private static String string(Expression expression, String what) {
        Object value = constant(expression, what);
        if (value != null && !(value instanceof UTF8String)) {
            throw analysis(NAME + ": " + what + " must be a string, not " + expression.sql());
        }
        return value == null ? null : value.toString();
    }
}
