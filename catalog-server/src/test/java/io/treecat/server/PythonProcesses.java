package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * PyIceberg for the tests that drive the server with it ({@link PyIcebergIT}, {@link
 * CrashDurabilityIT}): a virtual environment under {@code target/} with the pinned PyIceberg (and
 * its PyArrow) from PyPI, made with the machine's {@code python3} once per clean build, and the
 * processes the tests run in it.
 */
final class PythonProcesses {
    /** The PyIceberg release the tests pin (its PyArrow comes with it). */
    static final String PYICEBERG = "pyiceberg[pyarrow]==0.12.0";

    private PythonProcesses() {}

    /** What a finished process printed. */
    record Run(int exitCode, String out, String err) {}

    /** The venv's python, creating the venv and installing PyIceberg first if this build has none. */
    static synchronized Path python(Path scratch) throws Exception {
        Path venv = Path.of("target/pyiceberg-venv").toAbsolutePath();
        Path python = venv.resolve("bin/python");
        Path installed = venv.resolve("installed.txt");
        if (Files.isRegularFile(installed) && Files.readString(installed).equals(PYICEBERG)) {
            return python;
        }
        Run created = run(List.of("python3", "-m", "venv", "--clear", venv.toString()), scratch, 120);
        assertThat(created.exitCode())
                .as("python3 -m venv failed:%n%s", created.err())
                .isZero();
        Run pip = run(
                List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "-q", PYICEBERG),
                scratch,
                600);
        assertThat(pip.exitCode())
                .as("pip install %s failed:%n%s%n%s", PYICEBERG, pip.out(), pip.err())
                .isZero();
        Files.writeString(installed, PYICEBERG);
        return python;
    }

    /** A script under {@code src/test/python}. */
    static Path script(String name) {
        return Path.of("src/test/python", name).toAbsolutePath();
    }

    /** Runs {@code command} in {@code directory} to its end, its output in files there. */
    static Run run(List<String> command, Path directory, int timeoutSeconds) throws Exception {
        return run(command, directory, timeoutSeconds, java.util.Map.of());
    }

    /** As {@link #run(List, Path, int)}, with {@code environment} added to the process's (a secret stays off argv). */
    static Run run(List<String> command, Path directory, int timeoutSeconds, java.util.Map<String, String> environment)
            throws Exception {
        Path out = Files.createTempFile(directory, "out", ".txt");
        Path err = Files.createTempFile(directory, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
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
