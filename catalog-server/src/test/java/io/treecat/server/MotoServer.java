package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * moto's server ({@code moto[server]} from PyPI) on a free loopback port: S3, STS and IAM in one process, with IAM
 * checks on, so a request needs a key IAM knows and a policy that allows it. Installed into a virtual environment
 * under {@code target/} with the machine's {@code python3}, once per clean build, as {@link PythonProcesses} installs
 * PyIceberg. At start it is seeded ({@code src/test/python/moto_setup.py}) with the catalog's admin user and key, one
 * role allowing {@code s3:*} that the catalog may assume, and the buckets. Other modules may copy this class.
 *
 * <p>What moto 5.2.5 enforces: the key, the user's and the assumed role's own policies. What it does not: an
 * {@code AssumeRole}'s inline session policy, and a session's expiry (docs/object-storage.md).
 */
final class MotoServer implements AutoCloseable {
    /** The moto release the tests pin. */
    static final String MOTO = "moto[server]==5.2.5";
    /** The calls moto_setup.py makes before it has a key; every later request is checked. */
    private static final String UNCHECKED_CALLS = "3";

    private static final String ROLE = "treecat-vended";

    private final Process process;
    private final int port;
    private final String accessKeyId;
    private final String secretAccessKey;
    private final String roleArn;

    /**
     * @param scratch where the process's output goes
     * @param buckets the buckets to make
     */
    MotoServer(Path scratch, String... buckets) throws Exception {
        Path python = python(scratch);
        port = FreePorts.next();
        Path log = Files.createTempFile(scratch, "moto", ".log");
        ProcessBuilder builder = new ProcessBuilder(
                        python.resolveSibling("moto_server").toString(),
                        "-H",
                        "127.0.0.1",
                        "-p",
                        Integer.toString(port))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("INITIAL_NO_AUTH_ACTION_COUNT", UNCHECKED_CALLS);
        process = builder.start();
        try {
            awaitListening(log);
            List<String> setup = new ArrayList<>(List.of(
                    python.toString(), PythonProcesses.script("moto_setup.py").toString(), endpoint(), ROLE));
            setup.addAll(List.of(buckets));
            PythonProcesses.Run run = PythonProcesses.run(setup, scratch, 120);
            assertThat(run.exitCode())
                    .as("moto_setup.py failed:%n%s", run.err())
                    .isZero();
            JsonNode keys = new ObjectMapper().readTree(run.out());
            accessKeyId = keys.get("access_key_id").asText();
            secretAccessKey = keys.get("secret_access_key").asText();
            roleArn = keys.get("role_arn").asText();
        } catch (Exception | AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** The catalog's own key id (an admin user's). */
    String accessKeyId() {
        return accessKeyId;
    }

    String secretAccessKey() {
        return secretAccessKey;
    }

    /** The role vended credentials come from: it allows {@code s3:*}. */
    String roleArn() {
        return roleArn;
    }

    /** The venv's python, with moto installed into it if this build has none. */
    private static synchronized Path python(Path scratch) throws Exception {
        Path venv = Path.of("target/moto-venv").toAbsolutePath();
        Path python = venv.resolve("bin/python");
        Path installed = venv.resolve("installed.txt");
        if (Files.isRegularFile(installed) && Files.readString(installed).equals(MOTO)) {
            return python;
        }
        PythonProcesses.Run created =
                PythonProcesses.run(List.of("python3", "-m", "venv", "--clear", venv.toString()), scratch, 120);
        assertThat(created.exitCode())
                .as("python3 -m venv failed:%n%s", created.err())
                .isZero();
        PythonProcesses.Run pip = PythonProcesses.run(
                List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "-q", MOTO),
                scratch,
                600);
        assertThat(pip.exitCode())
                .as("pip install %s failed:%n%s%n%s", MOTO, pip.out(), pip.err())
                .isZero();
        Files.writeString(installed, MOTO);
        return python;
    }

    private void awaitListening(Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("moto_server exited: " + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                process.waitFor(100, TimeUnit.MILLISECONDS);
            }
        }
        throw new IllegalStateException("moto_server did not listen on " + port + ": " + Files.readString(log));
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
