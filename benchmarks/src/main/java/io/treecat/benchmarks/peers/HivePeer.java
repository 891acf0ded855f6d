package io.treecat.benchmarks.peers;

import io.treecat.benchmarks.ServerProcess;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;

/**
 * A real Apache Hive standalone metastore 4.0.1 on embedded Derby as a peer, from the jars {@code
 * benchmarks/hms-peer/pom.xml} resolves from Maven Central (PEERS.md, "Apache Hive Metastore 4.0.1"), in its own JVM
 * on loopback. Its Thrift endpoint is binary and unframed, as TreeCat's.
 */
public final class HivePeer {
    /** Where {@code ./mvnw -B -q -f benchmarks/hms-peer/pom.xml package} leaves the classpath and SQL scripts. */
    public static final Path HOME = Path.of("benchmarks/hms-peer/target");

    private static final String DISTRIBUTION = "dist/apache-hive-metastore-4.0.1-bin";

    private HivePeer() {}

    /** A started metastore, and how long Hive's schema tool took to make its Derby database. */
    public record Started(ServerProcess server, Path warehouse, long schemaMillis) {}

    /** Why Hive cannot run here, if it cannot: its classpath or its schema scripts are missing. */
    public static Optional<String> unavailable() {
        if (!Files.isDirectory(HOME.resolve("lib"))
                || !Files.isDirectory(HOME.resolve(DISTRIBUTION).resolve("scripts/metastore/upgrade/derby"))) {
            return Optional.of("the Hive 4.0.1 metastore is not resolved under " + HOME
                    + ": run ./mvnw -B -q -f benchmarks/hms-peer/pom.xml package (benchmarks/run.sh does)");
        }
        return Optional.empty();
    }

    /**
     * Makes a fresh Derby metastore under {@code directory} with Hive's own {@code MetastoreSchemaTool}, then starts
     * {@code HiveMetaStore} on it with {@code jvmOptions}; waits until its port answers. Its external tables belong
     * under the answer's {@code warehouse()}.
     */
    public static Started start(Path directory, List<String> jvmOptions) throws IOException, InterruptedException {
        unavailable().ifPresent(reason -> {
            throw new IllegalStateException(reason);
        });
        Path lib = HOME.toAbsolutePath().resolve("lib");
        Path distribution = HOME.toAbsolutePath().resolve(DISTRIBUTION);
        Path home = Files.createDirectories(directory).toAbsolutePath();
        Path conf = Files.createDirectories(home.resolve("conf"));
        // External tables live apart from the managed root: Hive 4 refuses an external table inside it.
        Path managed = Files.createDirectories(home.resolve("managed"));
        Path warehouse = Files.createDirectories(home.resolve("warehouse"));
        // Hive's defaults except the store's location and the worker pool: its default minimum of 200 threads is
        // lowered on this small machine, as PEERS.md says.
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
        // The conf directory first, so that MetastoreConf finds metastore-site.xml on the classpath.
        String classpath = conf + File.pathSeparator + lib + "/*";
        Map<String, String> environment = Map.of("METASTORE_HOME", distribution.toString());
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
        long schemaMillis = (System.nanoTime() - begin) / 1_000_000;

        int port = ServerProcess.freePort();
        List<String> server = new ArrayList<>();
        server.add(ServerProcess.javaBinary());
        server.addAll(jvmOptions);
        server.addAll(derbyLog);
        server.addAll(List.of(
                "-cp", classpath, "org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", Integer.toString(port)));
        ServerProcess process = ServerProcess.start(
                "Hive 4.0.1", server, environment, home, port, null, home.resolve("server.log"), 180);
        return new Started(process, warehouse, schemaMillis);
    }

    /**
     * The storage descriptor of an external Parquet table or partition at {@code location} with {@code columns}, as
     * Hive's own DDL writes it: what the experiments register in both metastores.
     */
    public static StorageDescriptor parquetStorage(List<FieldSchema> columns, String location) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.copyOf(columns));
        sd.setLocation(location);
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        sd.setCompressed(false);
        sd.setNumBuckets(-1);
        SerDeInfo serde = new SerDeInfo();
        serde.setSerializationLib("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe");
        serde.setParameters(new HashMap<>(Map.of("serialization.format", "1")));
        sd.setSerdeInfo(serde);
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());
        sd.setParameters(new HashMap<>());
        return sd;
    }
}
