package io.treecat.hms;

import java.util.Map;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;

/**
 * {@code get_table_names_by_filter}: Hive's filter language over a table's fields instead of
 * partition keys. The keys are Hive's constants: {@code hive_filter_field_owner__},
 * {@code hive_filter_field_tableName__}, {@code hive_filter_field_tableType__} (strings),
 * {@code hive_filter_field_last_access__} (an integer), and {@code hive_filter_field_params__<name>},
 * the table parameter {@code <name>} (exact case), e.g. Iceberg's
 * {@code hive_filter_field_params__table_type like "ICEBERG"}.
 *
 * <p>Evaluated by the one {@link HiveFilterEvaluator} on each table of the database (a database's
 * tables are one bounded scan): {@code last_access} compares numerically, a parameter the table does
 * not have compares as Java's null does in Hive's JDO query. {@code like} is spelled as Hive's JDO
 * query passes it to {@code String.matches} ({@link LikePattern.Syntax#JDOQL_MATCHES}: {@code .*} and
 * {@code .}), which is what clients send for tables ({@code like ".*x.*"}). As Hive does, this refuses
 * {@code like} on {@code last_access}, and on a parameter any operator but {@code =}, {@code !=},
 * {@code <>} and {@code like}.
 */
final class HmsTableFilter {
    private final HiveFilterEvaluator evaluator;

    private HmsTableFilter(HiveFilter.Node filter) {
        this.evaluator = new HiveFilterEvaluator(filter, LikePattern.Syntax.JDOQL_MATCHES);
    }

    static HmsTableFilter parse(String text) throws MetaException {
        return of(HiveFilter.parse(text));
    }

    /** Checks a parsed filter's keys and operators as Hive does. */
    static HmsTableFilter of(HiveFilter.Node filter) throws MetaException {
        HiveFilter.forEachCondition(filter, HmsTableFilter::check);
        return new HmsTableFilter(filter);
    }

    private static void check(String key, HiveFilter.Operator operator, HiveFilter.Literal value) throws MetaException {
        boolean parameter = key.startsWith(hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS)
                && key.length() > hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS.length();
        if (!(key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_OWNER)
                || key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS)
                || key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_NAME)
                || key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_TYPE)
                || parameter)) {
            throw new MetaException("Invalid key name in filter: '" + key
                    + "'. Use constants from org.apache.hadoop.hive.metastore.api.hive_metastoreConstants");
        }
        if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS) && operator == HiveFilter.Operator.LIKE) {
            throw new MetaException(
                    "Like is not supported for HIVE_FILTER_FIELD_LAST_ACCESS: " + key + " like " + value.show());
        }
        if (parameter
                && !(operator == HiveFilter.Operator.EQUALS
                        || operator == HiveFilter.Operator.NOT_EQUALS
                        || operator == HiveFilter.Operator.LIKE)) {
            throw new MetaException("Only =, !=, <> and like are supported operators for HIVE_FILTER_FIELD_PARAMS: "
                    + key + " " + operator.symbol() + " " + value.show());
        }
    }

    boolean test(Table table) {
        return evaluator.matches(new HiveFilterEvaluator.Row() {
            @Override
            public String value(String key) {
                if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS)) {
                    return Integer.toString(table.getLastAccessTime());
                }
                if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_OWNER)) {
                    return table.getOwner();
                }
                if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_NAME)) {
                    return table.getTableName();
                }
                if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_TYPE)) {
                    return table.getTableType();
                }
                Map<String, String> parameters = table.getParameters();
                return parameters == null
                        ? null
                        : parameters.get(key.substring(hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS.length()));
            }

            @Override
            public HiveFilterEvaluator.KeyType type(String key) {
                return key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS)
                        ? HiveFilterEvaluator.KeyType.INTEGRAL
                        : HiveFilterEvaluator.KeyType.STRING;
            }
        });
    }
}
