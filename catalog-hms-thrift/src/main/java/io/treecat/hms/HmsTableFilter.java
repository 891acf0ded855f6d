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
 * <p>Strings compare by code point; {@code like} is a Java regular expression over the whole value,
 * as Hive's JDO filter ({@code String.matches}). A parameter the table does not have compares as
 * Java's null does in Hive's JDO query: {@code <>} is true, every other comparison false. Evaluated
 * in Java on each table of the database (a database's tables are one bounded scan).
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
    return Boolean.TRUE.equals(evaluate(filter, table));
  }

  private Boolean evaluate(HiveFilter.Node node, Table table) {
    if (node instanceof HiveFilter.All) {
      return true;
    }
    if (node instanceof HiveFilter.And and) {
      Boolean left = evaluate(and.left(), table);
      Boolean right = Boolean.FALSE.equals(left) ? Boolean.FALSE : evaluate(and.right(), table);
      return Boolean.FALSE.equals(left) || Boolean.FALSE.equals(right) ? Boolean.FALSE : left == null || right == null ? null : Boolean.TRUE;
    }
    if (node instanceof HiveFilter.Or or) {
      Boolean left = evaluate(or.left(), table);
      Boolean right = Boolean.TRUE.equals(left) ? Boolean.TRUE : evaluate(or.right(), table);
      return Boolean.TRUE.equals(left) || Boolean.TRUE.equals(right) ? Boolean.TRUE : left == null || right == null ? null : Boolean.FALSE;
    }
    if (node instanceof HiveFilter.Not not) {
      Boolean operand = evaluate(not.operand(), table);
      return operand == null ? null : Boolean.valueOf(!operand);
    }
    if (node instanceof HiveFilter.Compare compare) {
      return compare(table, compare.key(), compare.operator(), compare.value());
    }
    if (node instanceof HiveFilter.In in) {
      Boolean any = false;
      for (HiveFilter.Literal value : in.values()) {
        Boolean equal = compare(table, in.key(), HiveFilter.Operator.EQUALS, value);
        if (Boolean.TRUE.equals(equal)) {
          any = true;
          break;
        }
        if (equal == null) {
          any = null;
        }
      }
      return in.negated() && any != null ? Boolean.valueOf(!any) : any;
    }
    if (node instanceof HiveFilter.Between between) {
      Boolean low = compare(table, between.key(), HiveFilter.Operator.GREATER_OR_EQUAL, between.low());
      Boolean high = compare(table, between.key(), HiveFilter.Operator.LESS_OR_EQUAL, between.high());
      Boolean inside = Boolean.FALSE.equals(low) || Boolean.FALSE.equals(high) ? Boolean.FALSE : low == null || high == null ? null : Boolean.TRUE;
      return between.negated() && inside != null ? Boolean.valueOf(!inside) : inside;
    }
    throw new IllegalStateException("unknown filter node " + node);
  }

  private static Boolean compare(Table table, String key, HiveFilter.Operator operator, HiveFilter.Literal literal) {
    if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_LAST_ACCESS)) {
      Long number = PartitionFilterPlanner.parseLong(literal.text());
      if (number == null || operator == HiveFilter.Operator.LIKE) {
        return compareStrings(Integer.toString(table.getLastAccessTime()), operator, literal.text());
      }
      return result(operator, Long.compare(table.getLastAccessTime(), number));
    }
    String value;
    if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_OWNER)) {
      value = table.getOwner();
    } else if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_NAME)) {
      value = table.getTableName();
    } else if (key.equals(hive_metastoreConstants.HIVE_FILTER_FIELD_TABLE_TYPE)) {
      value = table.getTableType();
    } else {
      Map<String, String> parameters = table.getParameters();
      value = parameters == null ? null : parameters.get(key.substring(hive_metastoreConstants.HIVE_FILTER_FIELD_PARAMS.length()));
    }
    if (value == null) {
      return operator == HiveFilter.Operator.NOT_EQUALS;
    }
    return compareStrings(value, operator, literal.text());
  }

  private static Boolean compareStrings(String value, HiveFilter.Operator operator, String literal) {
    if (operator == HiveFilter.Operator.LIKE) {
      return value.matches(literal);
    }
    return result(operator, PartitionFilterPlanner.compareCodePoints(value, literal));
  }

  private static boolean result(HiveFilter.Operator operator, int order) {
    return switch (operator) {
      case EQUALS -> order == 0;
      case NOT_EQUALS -> order != 0;
      case LESS -> order < 0;
      case LESS_OR_EQUAL -> order <= 0;
      case GREATER -> order > 0;
      case GREATER_OR_EQUAL -> order >= 0;
      case LIKE -> throw new IllegalStateException("like is handled by the caller");
    };
  }
}
