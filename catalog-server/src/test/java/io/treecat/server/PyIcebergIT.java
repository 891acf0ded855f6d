package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyIceberg, the Python client, pointed at a real server by its URI alone: namespaces, a
 * partitioned table, appends from two clients, filtered scans, a delete, schema evolution, time
 * travel, properties, rename and drop ({@code src/test/python/pyiceberg_e2e.py}). PyIceberg and
 * PyArrow are installed from PyPI into a virtual environment under {@code target/} with the
 * machine's {@code python3}, once per clean build ({@link PythonProcesses}). Runs after {@code
 * package} (failsafe).
 */
class PyIcebergIT {
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
        Path python = PythonProcesses.python(directory);
        PythonProcesses.Run run = PythonProcesses.run(
                List.of(
                        python.toString(),
                        PythonProcesses.script("pyiceberg_e2e.py").toString(),
                        "http://127.0.0.1:" + server.port()),
                directory,
                300);
        assertThat(run.exitCode())
                .as("pyiceberg_e2e.py failed:%n%s%n%s", run.out(), run.err())
                .isZero();
        assertThat(run.out()).contains("PYICEBERG OK");
    }
}
