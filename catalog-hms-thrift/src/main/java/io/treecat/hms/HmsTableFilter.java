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
 * not have compares as Java's null does in Hive's JDO query.
 */
final class HmsTableFilter {
  private final HiveFilter.Node filter;

  private HmsTableFilter(HiveFilter.Node filter) {
    this.filter = filter;
  }

  static HmsTableFilter parse(String text) throws MetaException {
    HiveFilter.Node filter = HiveFilter.parse(text);
    HiveFilter.validate(filter, "filter", HmsTableFilter::checkKey);
    return new HmsTableFilter(filter);
  }

  private static void checkKey(String key) throws MetaException {
    if (!(key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_OWNER) || key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS)
        || key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_NAME) || key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_TYPE)
        || (key.startsWith(hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS) && key.length() > hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS.length()))) {
      throw new MetaException("Invalid key name in filter: '" + key + "'. Use constants from org.apache.hadoop.hive.metastore.api.hive_metastoreConstants");
    }
  }

  boolean test(Table table) {
    return HiveFilterEvaluator.matches(filter, new HiveFilterEvaluator.Row() {
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
        return parameters == null ? null : parameters.get(key.substring(hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS.length()));
      }

      @Override
      public boolean integral(String key) {
        return key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS);
      }
    });
  }
}
