package io.treecat.conformance.hms;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The reference: Apache Hive's standalone metastore 4.0.1 with a fresh embedded Derby in a run directory, run from
 * the classpath the {@code hms-conformance/hive-peer} module resolves (never this JVM's: Hive 4.0.1 and TreeCat's
 * Hive 4.1 Thrift classes must not meet). Starting it takes two JVMs: {@code MetastoreSchemaTool -initSchema}, then
 * {@code HiveMetaStore -p <port>}.
 */
final class HivePeer implements MetastorePeer {
    /** Where the build leaves the peer ({@code hive-peer/target}); failsafe sets it, tests run by hand may too. */
    static final String HOME_PROPERTY = "hms.differential.hive-peer";

    private static final String DIST = "dist/apache-hive-metastore-4.0.1-bin";
    /** C1 only, as TreeCatPeer's: a test's server lives seconds, and C2's compiles cost more than they win back. */
    private static final List<String> JVM_OPTIONS =
            List.of("-Xmx512m", "-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1");

    private static final Duration SCHEMA_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final ServerProcess process;

    private HivePeer(ServerProcess process) {
        this.process = requireNonNull(process, "process is null");
    }

    /** Initializes a Derby schema under {@code runDirectory} and starts the metastore on a free port; returns once it serves. */
    static HivePeer start(Path runDirectory) throws IOException, InterruptedException {
        Path peerHome = peerHome();
        Path lib = peerHome.resolve("lib");
        Path dist = peerHome.resolve(DIST);
        if (!Files.isDirectory(lib) || !Files.isDirectory(dist.resolve("scripts/metastore/upgrade/derby"))) {
            throw new IllegalStateException(
                    "The Hive 4.0.1 peer is not resolved under " + peerHome + ": build the module "
                            + "hms-conformance/hive-peer first (./mvnw -B verify does; alone: ./mvnw -B package -pl hms-conformance/hive-peer)");
        }
        Path home = Files.createDirectories(runDirectory.resolve("hive")).toAbsolutePath();
        Path conf = Files.createDirectories(home.resolve("conf"));
        // External tables may not live under the managed root, so the two roots are separate directories.
        Path managed = Files.createDirectories(home.resolve("managed"));
        Path external = Files.createDirectories(home.resolve("external"));
        // Hive's defaults except the store, the worker pool (its default minimum of 200 threads is too many here),
        // asynchronous logging, which needs the LMAX disruptor the metastore's classpath lacks once it logs at all, and
        // the metadata transformer: Hive 4 rewrites a managed table a client without declared capabilities creates into
        // an external one with external.table.purge; TreeCat keeps the type a client gives (KnownHiveDivergences). And
        // no retries of a failed store call: Hive retries a JDO failure ten times, 2 s apart, before it answers it. And
        // the time open_txns may take (1 s by default: a batch of a thousand on Derby on a busy machine takes longer,
        // and Hive then opens another thousand, so its ids would depend on the machine).
        String site = """
        <?xml version="1.0"?>
        <configuration>
          <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName=%s;create=true</value></property>
          <property><name>javax.jdo.option.ConnectionDriverName</name><value>org.apache.derby.jdbc.EmbeddedDriver</value></property>
          <property><name>metastore.warehouse.dir</name><value>%s</value></property>
          <property><name>metastore.warehouse.external.dir</name><value>%s</value></property>
          <property><name>metastore.server.min.threads</name><value>16</value></property>
          <property><name>metastore.async.log.enabled</name><value>false</value></property>
          <property><name>metastore.metadata.transformer.class</name><value> </value></property>
          <property><name>metastore.hmshandler.retry.attempts</name><value>1</value></property>
          <property><name>metastore.txn.opentxn.timeout</name><value>60000</value></property>
        </configuration>
        """.formatted(home.resolve("metastore_db"), managed.toUri(), external.toUri());
        Files.writeString(conf.resolve("metastore-site.xml"), site, StandardCharsets.UTF_8);
        // WARN, not Hive's default: the log then says when a filter fell back from direct SQL to JDO, which explains
        // answers.
        String logging = """
        status = WARN
        appender.console.type = Console
        appender.console.name = console
        appender.console.layout.type = PatternLayout
        appender.console.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
        rootLogger.level = WARN
        rootLogger.appenderRef.console.ref = console
        """;
        Files.writeString(conf.resolve("metastore-log4j2.properties"), logging, StandardCharsets.UTF_8);
        // The conf directory first, so that MetastoreConf finds metastore-site.xml on the classpath.
        String classpath = conf + File.pathSeparator + lib + File.separator + "*";
        Map<String, String> environment = Map.of("METASTORE_HOME", dist.toString());

        List<String> schemaTool = command(home, classpath);
        schemaTool.addAll(List.of(
                "org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool",
                "-initSchema",
                "-dbType",
                "derby"));
        ServerProcess.run(schemaTool, environment, home, home.resolve("schematool.log"), SCHEMA_TIMEOUT);

        int port = ServerProcess.freePort();
        List<String> server = command(home, classpath);
        server.addAll(List.of("org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", Integer.toString(port)));
        ServerProcess process =
                ServerProcess.launch("Hive 4.0.1", server, environment, home, port, home.resolve("server.log"));
        return new HivePeer(process.awaitServing(START_TIMEOUT));
    }

    /** Where Hive puts what has no location of its own: its managed and its external warehouse. */
    static List<Path> warehouseRoots(Path runDirectory) {
        Path home = runDirectory.resolve("hive").toAbsolutePath();
        return List.of(home.resolve("managed"), home.resolve("external"));
    }

    private static List<String> command(Path home, String classpath) {
        List<String> command = new ArrayList<>();
        command.add(ServerProcess.javaBinary());
        command.addAll(JVM_OPTIONS);
        command.add("-Dderby.stream.error.file=" + home.resolve("derby.log"));
        command.addAll(List.of("-cp", classpath));
        return command;
    }

    private static Path peerHome() {
        String configured = System.getProperty(HOME_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        // Run from the IDE or by hand: the module directory is the working directory, as under failsafe.
        return Path.of("hive-peer", "target").toAbsolutePath();
    }

    @Override
    public String name() {
        return process.name();
    }

    @Override
    public int port() {
        return process.port();
    }

    @Override
    public Path log() {
        return process.log();
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
