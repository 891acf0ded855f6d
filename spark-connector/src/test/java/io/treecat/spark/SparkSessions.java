package io.treecat.spark;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
     * The start of a command for a Spark JVM of its own (a driver a test kills, {@code spark-submit}): this JVM's
     * {@code java}, its JDK 17 options for Spark (the {@code --add-opens} list and friends), a small heap, C1 only,
     * and {@code classPath}.
     */
    static List<String> childJvm(String classPath) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith("--add-")
                        || argument.startsWith("-Dio.netty")
                        || argument.startsWith("-Djdk.reflect"))
                .toList());
        command.addAll(List.of("-Xmx768m", "-XX:TieredStopAtLevel=1", "-cp", classPath));
        return command;
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
