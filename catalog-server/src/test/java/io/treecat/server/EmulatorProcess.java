package io.treecat.server;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A storage emulator the tests install from its registry into {@code target/emulators} (once; later runs reuse it)
 * and run as a child process on loopback. When the registry's client ({@code python3} for PyPI, {@code npm}) is not on
 * the {@code PATH} the test is skipped with an assumption naming it; CI has both.
 */
final class EmulatorProcess implements AutoCloseable {
    static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final Path log;

    private EmulatorProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** {@code target/emulators/<name>} of this module (surefire runs in the module's directory). */
    static Path home(String name) throws IOException {
        Path home = Path.of(System.getProperty("user.dir"), "target", "emulators", name);
        Files.createDirectories(home);
        return home;
    }

    /** Skips the test unless {@code tool} is on the PATH. */
    static void assumeTool(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        boolean found = false;
        for (String directory : path.split(File.pathSeparator)) {
            if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, tool))) {
                found = true;
                break;
            }
        }
        assumeTrue(found, "'" + tool + "' is not on the PATH: the emulator cannot be installed from its registry");
    }

    /** Runs an install command to its end; fails the test with its output when it fails. */
    static void install(Path home, List<String> command, java.util.Map<String, String> environment)
            throws IOException, InterruptedException {
        Path output = home.resolve("install.log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().putAll(environment);
        Process install = builder.start();
        if (!install.waitFor(15, TimeUnit.MINUTES) || install.exitValue() != 0) {
            install.destroyForcibly();
            throw new IllegalStateException(
                    "Installing the emulator failed: " + command + "\n" + Files.readString(output));
        }
    }

    /** Starts {@code command} and waits until {@code probe} answers with any HTTP status. */
    static EmulatorProcess start(Path home, List<String> command, URI probe) throws Exception {
        Path log = home.resolve("server.log");
        Process process = new ProcessBuilder(command)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        EmulatorProcess emulator = new EmulatorProcess(process, log);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                HTTP.send(
                        HttpRequest.newBuilder(probe)
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                return emulator;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    emulator.close();
                    throw new IllegalStateException(
                            "The emulator did not start: " + command + "\n" + Files.readString(log), e);
                }
                Thread.sleep(100);
            }
        }
    }

    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
