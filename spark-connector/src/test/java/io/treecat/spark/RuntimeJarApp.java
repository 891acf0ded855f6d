package io.treecat.spark;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark application that knows TreeCat's connector only by its class names, as a user's job does: run by
 * {@code spark-submit} ({@code SparkSubmit}) in {@link RuntimeJarSparkIT} with the connector's jar given to
 * {@code --jars} and nothing of TreeCat on the class path. It uses the catalog, {@code pin_vid} and
 * {@code treecat_query}, and prints one line per result for the test to check.
 *
 * <p>Argument: the TreeCat server's REST URI.
 */
public final class RuntimeJarApp {
    private RuntimeJarApp() {}

    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder()
                .config(
                        "spark.sql.extensions",
                        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                                + "io.treecat.spark.TreeCatSparkExtensions")
                .config("spark.sql.catalog.lake", "io.treecat.spark.TreeCatCatalog")
                .config("spark.sql.catalog.lake.uri", args[0])
                .getOrCreate();
        spark.sql("CREATE NAMESPACE lake.jar");
        spark.sql("CREATE TABLE lake.jar.events (id BIGINT, kind STRING) USING iceberg");
        spark.sql("INSERT INTO lake.jar.events VALUES (1, 'a'), (2, 'b')");
        print("count", spark.sql("SELECT count(*) FROM lake.jar.events").collectAsList());
        print("pinned", spark.sql("CALL lake.system.pin_vid()").collectAsList());
        print(
                "tables",
                spark.sql("SELECT id, type FROM treecat_query('/[obj_id=\"warehouse\"]/[obj_id=\"jar\"]/*')")
                        .collectAsList());
        spark.stop();
    }

    private static void print(String label, List<Row> rows) {
        System.out.println("RESULT " + label + " " + rows);
        System.out.flush();
    }
}
