package io.treecat.benchmarks.hms;

import io.treecat.benchmarks.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts the two servers of the benchmark, each in its own JVM with the same JVM options: TreeCat's
 * HMS Thrift server (the packaged TreeCat server, {@link ServerProcess#startTreeCat}) and a real Apache Hive standalone
 * metastore 4.0.1 on embedded Derby, from the jars that {@code benchmarks/hms-peer/pom.xml} resolves
 * through Maven (PEERS.md, "Apache Hive Metastore 4.0.1").
 */
final class Servers {
    /** Where {@code benchmarks/hms-peer/pom.xml} leaves the peer's classpath and SQL scripts. */
    static final String DEFAULT_PEER_HOME = "benchmarks/hms-peer/target";

    private static final String HIVE_DIST = "dist/apache-hive-metastore-4.0.1-bin";

    private Servers() {}

    /**
     * TreeCat as {@code bin/treecat} runs it ({@link ServerProcess#startTreeCat}): the whole server, its
     * HMS Thrift listener on a port chosen here; the answer's {@code port()} is that HMS port.
     */
    static ServerProcess startTreeCat(Path runDirectory, List<String> jvmOptions)
            throws IOException, InterruptedException {
        return ServerProcess.startTreeCat(
                ServerProcess.treecatJar(), runDirectory.resolve("treecat"), jvmOptions, 0, ServerProcess.freePort());
    }

    /**
     * Initialises a fresh Derby metastore with Hive's own {@code MetastoreSchemaTool} (timed, returned
     * in {@code schemaMillis[0]}), then starts {@code HiveMetaStore -p <port>} on it.
     */
    static ServerProcess startHive(Path peerHome, Path runDirectory, List<String> jvmOptions, long[] schemaMillis)
            throws IOException, InterruptedException {
        Path lib = peerHome.toAbsolutePath().resolve("lib");
        Path dist = peerHome.toAbsolutePath().resolve(HIVE_DIST);
        if (!Files.isDirectory(lib) || !Files.isDirectory(dist.resolve("scripts/metastore/upgrade/derby"))) {
            throw new IllegalStateException("The Hive 4.0.1 peer is not resolved under " + peerHome.toAbsolutePath()
                    + ": run ./mvnw -B -q -f benchmarks/hms-peer/pom.xml package (from the repository root) first");
        }
        Path home = Files.createDirectories(runDirectory.resolve("hive"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        // The benchmark's table is external; Hive 4 refuses an external table inside the managed root.
        Path managed = Files.createDirectories(home.resolve("managed"));
        Path warehouse = Files.createDirectories(home.resolve("warehouse"));
        // Hive's defaults except the store location and the worker pool: its default minimum of 200
        // threads is lowered on this small machine, as PEERS.md says.
        String site = """
        <?xml version="1.0"?>
        <configuration>
          <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName=%s;create=true</value></property>
          <property><name>javax.jdo.option.ConnectionDriverName</name><value>org.apache.derby.jdbc.EmbeddedDriver</value></property>
          <property><name>metastore.warehouse.dir</name><value>%s</value></property>
          <property><name>metastore.warehouse.external.dir</name><value>%s</value></property>
          <property><name>metastore.server.min.threads</name><value>16</value></property>
        </configuration>
        """.formatted(home.resolve("metastore_db"), managed.toUri(), warehouse.toUri());
        Files.writeString(conf.resolve("metastore-site.xml"), site, StandardCharsets.UTF_8);
        // The conf directory first, so MetastoreConf finds metastore-site.xml on the classpath.
        String classpath = conf + java.io.File.pathSeparator + lib + "/*";
        Map<String, String> environment =
                Map.of("METASTORE_HOME", dist.toAbsolutePath().toString());
        List<String> derbyLog = List.of("-Dderby.stream.error.file=" + home.resolve("derby.log"));

        List<String> schemaTool = new ArrayList<>();
        schemaTool.add(ServerProcess.javaBinary());
        schemaTool.addAll(jvmOptions);
        schemaTool.addAll(derbyLog);
        schemaTool.addAll(List.of(
                "-cp",
                classpath,
                "org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool",
                "-initSchema",
                "-dbType",
                "derby"));
        long begin = System.nanoTime();
        ServerProcess.runToCompletion(schemaTool, environment, home, home.resolve("schematool.log"), 300);
        schemaMillis[0] = (System.nanoTime() - begin) / 1_000_000;

        int port = ServerProcess.freePort();
        List<String> server = new ArrayList<>();
        server.add(ServerProcess.javaBinary());
        server.addAll(jvmOptions);
        server.addAll(derbyLog);
        server.addAll(List.of(
                "-cp", classpath, "org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", Integer.toString(port)));
        return ServerProcess.start(
                "Hive 4.0.1", server, environment, home, port, null, home.resolve("server.log"), 180);
    }
}
