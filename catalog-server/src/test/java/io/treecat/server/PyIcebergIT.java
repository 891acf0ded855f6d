package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyIceberg, the Python client, pointed at a real server by its URI alone: namespaces, a
 * partitioned table, appends from two clients, filtered scans, a delete, schema evolution, time
 * travel, properties, rename and drop ({@code src/test/python/pyiceberg_e2e.py}). PyIceberg and
 * PyArrow are installed from PyPI into a virtual environment under {@code target/} with the
 * machine's {@code python3}, once per clean build. Runs after {@code package} (failsafe).
 */
class PyIcebergIT {
    /** The PyIceberg release the test pins (its PyArrow comes with it). */
    private static final String PYICEBERG = "pyiceberg[pyarrow]==0.12.0";

    @TempDir
    Path directory;

    private TreeCatTestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TreeCatTestServer(directory.resolve("server"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void pyicebergWritesReadsAndEvolvesATableThroughTheRestCatalog() throws Exception {
        Path python = virtualEnvironment();
        Path script = Path.of("src/test/python/pyiceberg_e2e.py").toAbsolutePath();
        Run run = run(List.of(python.toString(), script.toString(), "http://127.0.0.1:" + server.port()), 300);
        assertThat(run.exitCode())
                .as("pyiceberg_e2e.py failed:%n%s%n%s", run.out(), run.err())
                .isZero();
        assertThat(run.out()).contains("PYICEBERG OK");
    }

    /** The venv's python, creating the venv and installing PyIceberg first if this build has none. */
    private Path virtualEnvironment() throws Exception {
        Path venv = Path.of("target/pyiceberg-venv").toAbsolutePath();
        Path python = venv.resolve("bin/python");
        Path installed = venv.resolve("installed.txt");
        if (Files.isRegularFile(installed) && Files.readString(installed).equals(PYICEBERG)) {
            return python;
        }
        Run created = run(List.of("python3", "-m", "venv", "--clear", venv.toString()), 120);
        assertThat(created.exitCode())
                .as("python3 -m venv failed:%n%s", created.err())
                .isZero();
        Run pip = run(
                List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "-q", PYICEBERG),
                600);
        assertThat(pip.exitCode())
                .as("pip install %s failed:%n%s%n%s", PYICEBERG, pip.out(), pip.err())
                .isZero();
        Files.writeString(installed, PYICEBERG);
        return python;
    }

    private record Run(int exitCode, String out, String err) {}

    private Run run(List<String> command, int timeoutSeconds) throws Exception {
        Path out = Files.createTempFile(directory, "out", ".txt");
        Path err = Files.createTempFile(directory, "err", ".txt");
        Process process = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("timed out after " + timeoutSeconds + " s: " + command + "\n"
                    + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Run(
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
