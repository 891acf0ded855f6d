package io.treecat.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged connector jar as a user adds it: {@code spark-submit --jars treecat-spark-runtime-….jar} in a JVM
 * whose class path has Spark and Iceberg's runtime and nothing of TreeCat. The application ({@link RuntimeJarApp})
 * names the connector's classes only in its configuration.
 */
class RuntimeJarSparkIT {
    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void sparkSubmitWithTheJarUsesTheCatalogTheProceduresAndTheQueryFunction() throws Exception {
        Path runtimeJar = Path.of(System.getProperty("treecat.spark.runtime.jar"));
        assertThat(runtimeJar).as("the packaged connector (mvn package)").isRegularFile();
        Path appJar = appJar(directory.resolve("app.jar"));

        // Spark, Iceberg and their dependencies: the test class path less this module's own classes.
        String classPath = Arrays.stream(
                        System.getProperty("surefire.test.class.path", "").split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .filter(entry -> !entry.endsWith("classes") && !entry.endsWith("classes" + File.separator))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(classPath).contains("spark-sql_2.13").contains("iceberg-spark-runtime");

        List<String> command = SparkSessions.childJvm(classPath);
        command.addAll(List.of(
                "org.apache.spark.deploy.SparkSubmit",
                "--master",
                "local[1]",
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.driver.host=127.0.0.1",
                "--conf",
                "spark.local.dir=" + directory.resolve("spark-local"),
                "--conf",
                "spark.sql.warehouse.dir="
                        + directory.resolve("spark-warehouse").toUri(),
                "--jars",
                runtimeJar.toString(),
                "--class",
                RuntimeJarApp.class.getName(),
                appJar.toString(),
                server.restUri()));
        Path output = directory.resolve("spark-submit.log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process submit = builder.start();
        boolean ended = submit.waitFor(5, TimeUnit.MINUTES);
        if (!ended) {
            submit.destroyForcibly();
        }
        String log = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(ended).as("spark-submit ended:\n%s", log).isTrue();
        assertThat(submit.exitValue()).as(log).isZero();
        assertThat(log)
                .contains("RESULT count [[2]]")
                .containsPattern("RESULT pinned \\[\\[\\d+\\]\\]")
                .contains("RESULT tables [[events,inner]]");
    }

    /** A jar of the application class alone, as a user's job jar. */
    private static Path appJar(Path jar) throws IOException {
        String entry = RuntimeJarApp.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file);
                InputStream in = RuntimeJarApp.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
