package io.treecat.conformance.hive3;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The fixture of the Hive 3.1 ITs of the calls issue 15 added: one packaged TreeCat server for the whole test run
 * (kept in JUnit's root store, closed when the run ends, so each IT class does not pay a server start), and per IT
 * class Hive 3.1's {@code HiveMetaStoreClient} and, for the calls that client has no public method for (the legacy
 * {@code alter_table}, {@code get_*_with_environment_context}, ...), Hive 3.1's generated Thrift client on its own
 * socket: the bytes Hive 3.1's IDL and libthrift 0.9.3 write either way. Register it as a static field:
 * {@code @RegisterExtension static final Hive3Metastore hms = new Hive3Metastore();}. Each IT works in databases of
 * its own, so the classes share the server without seeing each other.
 */
final class Hive3Metastore implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(Hive3Metastore.class);

    private final List<AutoCloseable> opened = new ArrayList<>();
    private TreeCatServer server;
    private HiveMetaStoreClient client;
    private ThriftHiveMetastore.Client thrift;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent("server", key -> startServer(), TreeCatServer.class);
        client = newClient();
        thrift = newThriftClient();
    }

    private static TreeCatServer startServer() {
        try {
            Path run = Files.createDirectories(Path.of("target", "hive3-client"));
            return TreeCatServer.start(Files.createTempDirectory(run.toAbsolutePath(), "run-"));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start TreeCat", e);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    TreeCatServer server() {
        return server;
    }

    /** This class's Hive 3.1 client. */
    HiveMetaStoreClient client() {
        return client;
    }

    /** This class's Hive 3.1 generated Thrift client, on a connection of its own. */
    ThriftHiveMetastore.Client thrift() {
        return thrift;
    }

    /** Another Hive 3.1 client on a new connection (per-connection settings), closed after the class. */
    HiveMetaStoreClient newClient() throws Exception {
        Configuration conf = MetastoreConf.newMetastoreConf();
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, server.uri());
        MetastoreConf.setLongVar(conf, MetastoreConf.ConfVars.THRIFT_CONNECTION_RETRIES, 1);
        HiveMetaStoreClient opened = new HiveMetaStoreClient(conf);
        this.opened.add(opened::close);
        return opened;
    }

    private ThriftHiveMetastore.Client newThriftClient() throws Exception {
        String uri = server.uri();
        int port = Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1));
        TSocket socket = new TSocket("127.0.0.1", port, 30_000);
        socket.open();
        opened.add(socket::close);
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    }

    static Database database(String name) {
        Database database = new Database(name, "made by Hive 3.1's client", null, new HashMap<>());
        database.setOwnerName("hive3");
        database.setOwnerType(PrincipalType.USER);
        return database;
    }

    static List<FieldSchema> columns(String... nameTypes) {
        List<FieldSchema> columns = new ArrayList<>();
        for (int i = 0; i < nameTypes.length; i += 2) {
            columns.add(new FieldSchema(nameTypes[i], nameTypes[i + 1], null));
        }
        return columns;
    }

    static StorageDescriptor storage(List<FieldSchema> columns) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(new ArrayList<>(columns));
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        SerDeInfo serde = new SerDeInfo();
        serde.setSerializationLib("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe");
        serde.setParameters(new HashMap<>());
        sd.setSerdeInfo(serde);
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());
        sd.setParameters(new HashMap<>());
        return sd;
    }

    /** A table of columns {@code id bigint, name string}, partitioned by {@code partitionKeys}. */
    static Table table(String db, String name, TableType type, FieldSchema... partitionKeys) {
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setOwner("hive3");
        table.setSd(storage(columns("id", "bigint", "name", "string")));
        table.setPartitionKeys(new ArrayList<>(List.of(partitionKeys)));
        table.setTableType(type.name());
        table.setParameters(new HashMap<>(type == TableType.EXTERNAL_TABLE ? Map.of("EXTERNAL", "TRUE") : Map.of()));
        return table;
    }

    static Partition partition(String db, String table, String... values) {
        Partition partition = new Partition();
        partition.setDbName(db);
        partition.setTableName(table);
        partition.setValues(new ArrayList<>(List.of(values)));
        partition.setSd(storage(columns("id", "bigint", "name", "string")));
        partition.setParameters(new HashMap<>());
        return partition;
    }
}
