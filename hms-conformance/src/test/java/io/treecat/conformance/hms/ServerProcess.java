package io.treecat.conformance.hms;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A metastore in its own JVM, started by the tests: its output goes to a log file in its run directory, and it is
 * killed when closed or when the test JVM exits (a failed run must not leave a server holding ports and memory on a
 * shared machine). Both peers are started through here, so they differ only in what they run.
 */
final class ServerProcess implements AutoCloseable {
    private static final int TAIL_LINES = 60;

    private final String name;
    private final Process process;
    private final Path log;
    private final int port;

    private ServerProcess(String name, Process process, Path log, int port) {
        this.name = requireNonNull(name, "name is null");
        this.process = requireNonNull(process, "process is null");
        this.log = requireNonNull(log, "log is null");
        this.port = port;
    }

    /** Launches {@code command} in {@code directory} without waiting; {@link #awaitServing} waits for {@code port}. */
    static ServerProcess launch(
            String name, List<String> command, Map<String, String> environment, Path directory, int port, Path log)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            process.descendants().forEach(ProcessHandle::destroyForcibly);
                            process.destroyForcibly();
                        },
                        "kill-" + process.pid()));
        return new ServerProcess(name, process, log, port);
    }

    /** Runs a JVM to completion (Hive's schema tool), failing with the end of its log if it fails. */
    static void run(List<String> command, Map<String, String> environment, Path directory, Path log, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("Timed out after " + timeout + ": " + String.join(" ", command)
                    + "; its log, " + log + ":\n" + tail(log));
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("Exit " + process.exitValue() + ": " + String.join(" ", command)
                    + "; its log, " + log + ":\n" + tail(log));
        }
    }

    /** Returns once the server accepts connections on its port; kills it and fails with its log if it exits or takes too long. */
    ServerProcess awaitServing(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue()
                        + " before serving; its log, " + log + ":\n" + tail(log));
            }
            if (acceptsConnections(port)) {
                return this;
            }
            if (System.nanoTime() > deadline) {
                close();
                throw new IllegalStateException(
                        name + " did not serve within " + timeout + "; its log, " + log + ":\n" + tail(log));
            }
            Thread.sleep(100);
        }
    }

    /** A free loopback port, for servers that must be told their port up front (both peers are). */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port", e);
        }
    }

    /** The java binary running the tests, so that every server runs on the project's JDK. */
    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The end of a log, for failure messages: CI shows the message, not the files in target/. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    private static boolean acceptsConnections(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    Path log() {
        return log;
    }

    /** SIGTERM, then SIGKILL (with its children) if the server is still up after 20 s. */
    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
