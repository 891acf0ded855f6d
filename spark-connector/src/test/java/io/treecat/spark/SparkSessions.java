package io.treecat.spark;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;

/**
 * Spark in local mode, sized for a shared 2-core machine: two task threads, two shuffle partitions,
 * no web UI, everything on loopback. The settings TreeCat needs are added by each test class, and
 * docs/engines.md lists them.
 */
final class SparkSessions {
    private SparkSessions() {}

    static SparkSession.Builder local(String name, Path directory) {
        return SparkSession.builder()
                .master("local[2]")
                .appName(name)
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.default.parallelism", "2")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.session.timeZone", "UTC")
                .config(
                        "spark.sql.warehouse.dir",
                        directory.resolve("spark-warehouse").toUri().toString())
                .config("spark.local.dir", directory.resolve("spark-local").toString());
    }

    /**
     * Ends a suite: stops its Spark session, then (even if that failed) its TreeCat server, and prints
     * what the suite cost ({@link #printCost}). Either may be null when the suite's set-up failed.
     */
    static void stop(String suite, SparkSession spark, TreeCatServerProcess server) throws Exception {
        try {
            if (spark != null) {
                spark.stop();
            }
        } finally {
            if (server != null) {
                Duration serverCpu = server.cpuTime();
                server.close();
                printCost(suite, serverCpu);
            }
        }
    }

    /**
     * Prints this test JVM's CPU time and uptime (to the class's failsafe output file): on a shared
     * machine the wall time of a run says little, the CPU time is what the suite itself costs.
     */
    static void printCost(String suite, Duration serverCpu) {
        long uptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        long cpuNanos = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        System.out.printf(
                "%s: test JVM CPU time %.1f s, wall time %.1f s; TreeCat server CPU time %.1f s%n",
                suite, cpuNanos / 1e9, uptimeMillis / 1e3, serverCpu.toMillis() / 1e3);
    }
}
