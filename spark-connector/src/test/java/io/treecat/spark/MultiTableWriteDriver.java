package io.treecat.spark;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark driver of its own (a separate JVM) for {@link MultiTableWriteSparkIT}: stages a multi-table write,
 * says {@value #STAGED} on stdout from the audit step, and waits there (on stdin) to be killed before the commit.
 *
 * <p>Arguments: the server's REST URI, a scratch directory, the namespace of the tables.
 */
public final class MultiTableWriteDriver {
    static final String STAGED = "STAGED";

    private MultiTableWriteDriver() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        Path directory = Path.of(args[1]);
        String namespace = args[2];
        SparkSession spark = SparkSessions.local("treecat-multi-table-driver", directory)
                .master("local[1]")
                .config("spark.sql.catalog.lake", TreeCatCatalog.class.getName())
                .config("spark.sql.catalog.lake.uri", uri)
                .getOrCreate();
        MultiTableWrite.in(spark, "lake")
                .append(namespace + ".orders", spark.sql("SELECT 100L AS id, 'staged' AS status"))
                .delete(namespace + ".payments", "id = 1")
                .audit(staged -> {
                    System.out.println(STAGED + " " + staged);
                    System.out.flush();
                    // Blocks until the test kills this JVM; stdin ends with the test's JVM too, so no driver outlives
                    // it.
                    if (System.in.read() >= 0) {
                        throw new IllegalStateException("the test writes nothing to the driver");
                    }
                    throw new IllegalStateException("the test ended before killing the driver");
                })
                .commit();
        System.out.println("COMMITTED");
    }
}
