package io.treecat.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Spark SQL results as plain Java lists, so AssertJ can compare them with literals. */
final class SparkRows {
    private SparkRows() {}

    /** Runs one statement and returns every row as a list of its values, in Spark's order. */
    static List<List<Object>> rows(SparkSession spark, String sql) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : spark.sql(sql).collectAsList()) {
            List<Object> values = new ArrayList<>(row.length());
            for (int i = 0; i < row.length(); i++) {
                values.add(row.get(i));
            }
            rows.add(values);
        }
        return rows;
    }

    /** One row of values, to write expected results: {@code row(1, "ann", 150)}. */
    static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    /** The single value of a one-row, one-column query such as {@code SELECT count(*)}. */
    static Object scalar(SparkSession spark, String sql) {
        List<List<Object>> rows = rows(spark, sql);
        if (rows.size() != 1 || rows.get(0).size() != 1) {
            throw new IllegalStateException("Expected one value from '" + sql + "', got " + rows);
        }
        return rows.get(0).get(0);
    }

    /** One column of every row, e.g. the names {@code SHOW TABLES} lists (column 1). */
    static List<Object> column(SparkSession spark, String sql, int index) {
        List<Object> values = new ArrayList<>();
        for (List<Object> row : rows(spark, sql)) {
            values.add(row.get(index));
        }
        return values;
    }
}
