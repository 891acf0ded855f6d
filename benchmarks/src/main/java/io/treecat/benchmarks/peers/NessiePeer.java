package io.treecat.benchmarks.peers;

import io.treecat.benchmarks.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Project Nessie's server as a peer: the runner jar that {@code benchmarks/nessie-peer/pom.xml} resolves from Maven
 * Central, in its own JVM on loopback, with an in-memory version store and its Iceberg REST catalog's warehouse on an
 * S3 server (Nessie refuses {@code file:} warehouses). Its catalog is at {@code http://127.0.0.1:<port>/iceberg}, the
 * branch {@code main} as the REST prefix. Clients sign their S3 requests through Nessie (its default).
 */
public final class NessiePeer {
    /** Where {@code ./mvnw -B -q -f benchmarks/nessie-peer/pom.xml package} leaves the runner jar. */
    public static final Path RUNNER = Path.of("benchmarks/nessie-peer/target/nessie-quarkus-runner.jar");

    private static final int MINIMUM_JAVA = 21;

    private NessiePeer() {}

    /** The S3 server Nessie's warehouse lives on: its endpoint, a bucket that exists, and keys it accepts. */
    public record Store(String endpoint, String bucket, String accessKey, String secretKey) {}

    /** Why Nessie cannot run here, if it cannot: its jar is missing, or no JDK 21+ is installed. */
    public static Optional<String> unavailable() {
        if (!Files.isRegularFile(RUNNER)) {
            return Optional.of("no Nessie server jar at " + RUNNER
                    + ": run ./mvnw -B -q -f benchmarks/nessie-peer/pom.xml package (benchmarks/run.sh does)");
        }
        if (java().isEmpty()) {
            return Optional.of("Nessie needs a JDK " + MINIMUM_JAVA + "+, and none is under /usr/lib/jvm"
                    + " (or named by TREECAT_BENCH_JAVA21)");
        }
        return Optional.empty();
    }

    /** Starts Nessie with its warehouse at {@code s3://<bucket>/nessie}; waits until its REST catalog answers. */
    public static ServerProcess start(Path directory, Store store) throws IOException, InterruptedException {
        unavailable().ifPresent(reason -> {
            throw new IllegalStateException(reason);
        });
        Path home = Files.createDirectories(directory).toAbsolutePath();
        int port = ServerProcess.freePort();
        String s3 = "-Dnessie.catalog.service.s3.default-options.";
        List<String> command = new ArrayList<>(List.of(
                java().orElseThrow(),
                "-Xmx1g",
                "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.host=127.0.0.1",
                "-Dquarkus.management.port=" + ServerProcess.freePort(),
                "-Dquarkus.http.access-log.enabled=false",
                "-Dquarkus.log.level=WARN",
                // Nessie's AWS SDK sends trailing checksums S3Proxy does not verify; the SDK's own switches turn them
                // off, as for the TreeCat server's (docs/object-storage.md).
                "-Daws.requestChecksumCalculation=when_required",
                "-Daws.responseChecksumValidation=when_required",
                "-Dnessie.version.store.type=IN_MEMORY",
                "-Dnessie.catalog.default-warehouse=warehouse",
                "-Dnessie.catalog.warehouses.warehouse.location=s3://" + store.bucket() + "/nessie",
                s3 + "endpoint=" + store.endpoint(),
                s3 + "path-style-access=true",
                s3 + "region=us-east-1",
                s3 + "access-key=urn:nessie-secret:quarkus:nessie.s3creds",
                "-Dnessie.s3creds.name=" + store.accessKey(),
                "-Dnessie.s3creds.secret=" + store.secretKey(),
                "-jar",
                RUNNER.toAbsolutePath().toString()));
        return ServerProcess.start("Nessie", command, Map.of(), home, port, null, home.resolve("nessie.log"), 120);
    }

    /** The URI of Nessie's Iceberg REST catalog; its default warehouse and the branch {@code main} need no more. */
    public static String catalogUri(ServerProcess nessie) {
        return "http://127.0.0.1:" + nessie.port() + "/iceberg";
    }

    /** A JDK of version 21 or later: TREECAT_BENCH_JAVA21, else the newest under /usr/lib/jvm. */
    static Optional<String> java() {
        String named = System.getenv("TREECAT_BENCH_JAVA21");
        if (named != null && Files.isExecutable(Path.of(named))) {
            return Optional.of(named);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> installed = Files.list(jvms)) {
            return installed
                    .filter(jdk -> Files.isExecutable(jdk.resolve("bin/java")) && majorVersion(jdk) >= MINIMUM_JAVA)
                    .max(Comparator.comparingInt(NessiePeer::majorVersion))
                    .map(jdk -> jdk.resolve("bin/java").toString());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The major version in a JDK's {@code release} file; 0 when it has none. */
    private static int majorVersion(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"), StandardCharsets.UTF_8)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring(line.indexOf('"') + 1);
                    return Integer.parseInt(version.split("[.\"]")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
