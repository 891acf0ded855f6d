package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PartitionsByExprRequest;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableMeta;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The HMS Thrift server over loopback, driven by Hive's generated client on a real RocksDB tree. */
class TestTreeCatHms {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private ThriftHiveMetastore.Client client() throws Exception {
        return hms.client();
    }

    private static Database database(String name) {
        Database db = new Database();
        db.setName(name);
        db.setDescription("a database");
        db.setParameters(new HashMap<>(Map.of("k", "v")));
        return db;
    }

    private static Table table(String db, String name) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", "the id"), new FieldSchema("name", "string", null)));
        sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        sd.setSerdeInfo(
                new SerDeInfo("s", "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", new HashMap<>()));
        sd.setParameters(new HashMap<>());
        Table table = new Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setOwner("alice");
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("day", "string", null)));
        table.setParameters(new HashMap<>(Map.of("p", "1")));
        table.setTableType("MANAGED_TABLE");
        return table;
    }

    @Test
    void databaseRoundTrip() throws Exception {
        ThriftHiveMetastore.Client client = client();
        assertThat(client.set_ugi("alice", List.of("staff"))).containsExactly("staff");
        client.create_database(database("Sales"));
        Database db = client.get_database("sales");
        assertThat(db.getName()).isEqualTo("sales");
        assertThat(db.getDescription()).isEqualTo("a database");
        assertThat(db.getParameters()).containsEntry("k", "v");
        assertThat(db.getLocationUri()).isEqualTo(hms.warehouse().replaceAll("/$", "") + "/warehouse/sales");
        assertThat(Files.isDirectory(hms.directory().resolve("warehouse/warehouse/sales")))
                .isTrue();
        assertThat(db.getCatalogName()).isEqualTo("hive");

        GetDatabaseRequest request = new GetDatabaseRequest();
        request.setName("sales");
        request.setCatalogName("hive");
        assertThat(client.get_database_req(request).getName()).isEqualTo("sales");
        assertThat(client.get_database("@hive#sales").getName()).isEqualTo("sales");

        client.create_database(database("hr"));
        assertThat(client.get_all_databases()).containsExactly("default", "hr", "sales");
        assertThat(client.get_databases("s*")).containsExactly("sales");
        assertThat(client.get_databases("@hive#")).containsExactly("default", "hr", "sales");
        assertThat(client.get_databases("@hive#h*|x")).containsExactly("hr");
        // Hive's patterns: '.' is any one character, the empty pattern matches nothing.
        assertThat(client.get_databases("s.les")).containsExactly("sales");
        assertThat(client.get_databases("")).isEmpty();
        assertThatThrownBy(() -> client.get_database(null))
                .isInstanceOf(MetaException.class)
                .hasMessage("Database name cannot be null.");
        assertThatThrownBy(() -> client.create_database(database("")))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage(" is not a valid database name");

        assertThatThrownBy(() -> client.create_database(database("sales"))).isInstanceOf(AlreadyExistsException.class);
        assertThatThrownBy(() -> client.get_database("nope")).isInstanceOf(NoSuchObjectException.class);
        // Another catalog is another tree (TestHmsCatalogs); one that does not exist reads as empty, as in Hive.
        assertThatThrownBy(() -> client.get_database("@other#sales"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("Database sales does not exist");
        assertThat(client.get_databases("@other#")).isEmpty();

        client.drop_database("hr", true, false);
        assertThat(client.get_all_databases()).containsExactly("default", "sales");
        assertThatThrownBy(() -> client.drop_database("hr", true, false)).isInstanceOf(NoSuchObjectException.class);
    }

    @Test
    void tableRoundTripAndDropCascade() throws Exception {
        ThriftHiveMetastore.Client client = client();
        client.create_database(database("sales"));
        Table created = table("sales", "Orders");
        client.create_table(created);
        client.create_table_with_environment_context(
                table("@hive#sales", "items"), new EnvironmentContext(new HashMap<>()));

        GetTableRequest request = new GetTableRequest("sales", "orders");
        request.setCatName("hive");
        Table read = client.get_table_req(request).getTable();
        assertThat(read.getTableName()).isEqualTo("orders");
        assertThat(read.getDbName()).isEqualTo("sales");
        assertThat(read.getOwner()).isEqualTo("alice");
        assertThat(read.getTableType()).isEqualTo("MANAGED_TABLE");
        assertThat(read.getSd().getCols()).isEqualTo(created.getSd().getCols());
        assertThat(read.getSd().getSerdeInfo()).isEqualTo(created.getSd().getSerdeInfo());
        assertThat(read.getSd().getLocation()).endsWith("/warehouse/sales/orders");
        // As Hive's metastore does (Spark's INSERT into a new unpartitioned table reads the path first).
        assertThat(hms.directory().resolve("warehouse/warehouse/sales/orders")).isDirectory();
        assertThat(read.getPartitionKeys()).isEqualTo(created.getPartitionKeys());
        assertThat(read.getParameters()).containsEntry("p", "1");
        assertThat(read.getCreateTime()).isPositive();

        assertThat(client.get_all_tables("sales")).containsExactly("items", "orders");
        assertThat(client.get_tables("@hive#sales", "o*")).containsExactly("orders");
        List<TableMeta> metas = client.get_table_meta("*", "*", List.of("MANAGED_TABLE"));
        assertThat(metas).extracting(TableMeta::getTableName).containsExactly("items", "orders");
        assertThat(metas).extracting(TableMeta::getOwnerName).containsOnly("alice");
        assertThatThrownBy(() -> client.get_tables_by_type("sales", "*", "NOPE"))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("No such table type: NOPE");
        // As Hive's store answers: a missing database has no tables.
        assertThat(client.get_table_names_by_filter("nope", "hive_filter_field_owner__ = \"alice\"", (short) -1))
                .isEmpty();

        assertThatThrownBy(() -> client.create_table(table("sales", "orders")))
                .isInstanceOf(AlreadyExistsException.class);
        assertThatThrownBy(() -> client.create_table(table("nope", "t")))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessage("Database nope does not exist");
        assertThatThrownBy(() -> client.get_table_req(new GetTableRequest("sales", "nope")))
                .isInstanceOf(NoSuchObjectException.class);

        client.drop_table("sales", "items", true);
        assertThat(client.get_all_tables("sales")).containsExactly("orders");
        assertThatThrownBy(() -> client.drop_table("sales", "items", true)).isInstanceOf(NoSuchObjectException.class);

        assertThatThrownBy(() -> client.drop_database("sales", true, false))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("not empty");
        client.drop_database("sales", true, true);
        assertThat(client.get_all_databases()).containsExactly("default");
        assertThat(hms.catalog()
                        .get(ObjectPath.of("warehouse", "sales", "orders"), io.treecat.core.service.ReadPoint.LATEST))
                .isEmpty();
    }

    @Test
    void alterHonoursTheExpectedParameterSwap() throws Exception {
        ThriftHiveMetastore.Client client = client();
        client.create_database(database("db"));
        Table table = table("db", "t");
        table.setTableType("EXTERNAL_TABLE");
        table.getParameters().put("table_type", "ICEBERG");
        table.getParameters().put("metadata_location", "file:/m/v1.json");
        client.create_table(table);
        assertThat(hms.catalog()
                        .get(ObjectPath.of("warehouse", "db", "t"), io.treecat.core.service.ReadPoint.LATEST)
                        .orElseThrow()
                        .value()
                        .getString("metadata_location")
                        .getValue())
                .isEqualTo("file:/m/v1.json");

        Table v2 = client.get_table_req(new GetTableRequest("db", "t")).getTable();
        v2.getParameters().put("metadata_location", "file:/m/v2.json");
        v2.getParameters().put("previous_metadata_location", "file:/m/v1.json");
        client.alter_table_with_environment_context("db", "t", v2, swap("file:/m/v1.json"));

        Table stale = v2.deepCopy();
        stale.getParameters().put("metadata_location", "file:/m/v2-other.json");
        assertThatThrownBy(() -> client.alter_table_with_environment_context("db", "t", stale, swap("file:/m/v1.json")))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining(
                        "The table has been modified. The parameter value for key 'metadata_location' is 'file:/m/v2.json'");

        Table now = client.get_table_req(new GetTableRequest("db", "t")).getTable();
        assertThat(now.getParameters())
                .containsEntry("metadata_location", "file:/m/v2.json")
                .containsEntry("previous_metadata_location", "file:/m/v1.json");
        assertThat(now.getSd().getCols()).hasSize(2);

        // A plain alter (no swap) and a rename.
        now.getParameters().put("comment", "renamed");
        now.setTableName("t2");
        client.alter_table_with_environment_context("db", "t", now, null);
        assertThat(client.get_all_tables("db")).containsExactly("t2");
        assertThatThrownBy(() -> client.alter_table_with_environment_context("db", "t", now, null))
                .isInstanceOf(InvalidOperationException.class);
    }

    @Test
    void concurrentSwapsFromOneVersionLetExactlyOneWin() throws Exception {
        ThriftHiveMetastore.Client setup = client();
        setup.create_database(database("db"));
        Table table = table("db", "t");
        table.getParameters().put("table_type", "ICEBERG");
        table.getParameters().put("metadata_location", "v1");
        setup.create_table(table);
        Table base = setup.get_table_req(new GetTableRequest("db", "t")).getTable();

        int writers = 8;
        List<ThriftHiveMetastore.Client> clients = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            clients.add(client());
        }
        java.util.concurrent.CyclicBarrier barrier = new java.util.concurrent.CyclicBarrier(writers);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        try {
            List<java.util.concurrent.Future<Boolean>> outcomes = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                ThriftHiveMetastore.Client client = clients.get(i);
                Table next = base.deepCopy();
                next.getParameters().put("metadata_location", "v2-" + i);
                outcomes.add(pool.submit(() -> {
                    barrier.await();
                    try {
                        client.alter_table_with_environment_context("db", "t", next, swap("v1"));
                        return true;
                    } catch (MetaException e) {
                        assertThat(e.getMessage()).containsAnyOf("The table has been modified", "Commit conflict");
                        return false;
                    }
                }));
            }
            int won = 0;
            for (java.util.concurrent.Future<Boolean> outcome : outcomes) {
                won += outcome.get() ? 1 : 0;
            }
            assertThat(won).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(setup.get_table_req(new GetTableRequest("db", "t"))
                        .getTable()
                        .getParameters()
                        .get("metadata_location"))
                .startsWith("v2-");
    }

    private static EnvironmentContext swap(String expected) {
        return new EnvironmentContext(new HashMap<>(
                Map.of("expected_parameter_key", "metadata_location", "expected_parameter_value", expected)));
    }

    @Test
    void aTableMadeOverRestIsAnIcebergTableToHive() throws Exception {
        ThriftHiveMetastore.Client client = client();
        // As IcebergCatalog writes them: a namespace, a table object with metadata_location (the catalog is there
        // since the server started).
        hms.catalog()
                .commit(new WriteSet(List.of(
                        new WriteOp.Add(
                                ObjectPath.of("warehouse", "ns"),
                                ObjectKind.INNER,
                                new BsonDocument("obj_type", new BsonString("namespace"))
                                        .append("properties", new BsonDocument("owner", new BsonString("bob")))),
                        new WriteOp.Add(
                                ObjectPath.of("warehouse", "ns", "events"),
                                ObjectKind.INNER,
                                new BsonDocument("obj_type", new BsonString("table"))
                                        .append("format_version", new org.bson.BsonInt32(2))
                                        .append(
                                                "metadata_location",
                                                new BsonString("file:/w/ns/events/metadata/00000-x.metadata.json"))
                                        .append("location", new BsonString("file:/w/ns/events"))))));

        assertThat(client.get_all_databases()).containsExactly("default", "ns");
        assertThat(client.get_database("ns").getParameters()).containsEntry("owner", "bob");
        assertThat(client.get_all_tables("ns")).containsExactly("events");
        Table table = client.get_table_req(new GetTableRequest("ns", "events")).getTable();
        assertThat(table.getTableType()).isEqualTo("EXTERNAL_TABLE");
        assertThat(table.getParameters())
                .containsEntry("table_type", "ICEBERG")
                .containsEntry("metadata_location", "file:/w/ns/events/metadata/00000-x.metadata.json");
        assertThat(table.getSd().getLocation()).isEqualTo("file:/w/ns/events");
        assertThat(client.get_table_meta("ns", "*", null))
                .extracting(TableMeta::getTableName)
                .containsExactly("events");
    }

    /** Sends a Hive 2.3 call Hive 4's IDL lacks: args are (1: dbname, 2: tbl_name or tbl_names). */
    private TProtocol legacyCall(String name, String db, Object tables) throws Exception {
        TSocket socket = hms.socket();
        TProtocol protocol = new TBinaryProtocol(socket);
        protocol.writeMessageBegin(new TMessage(name, TMessageType.CALL, 7));
        protocol.writeStructBegin(new TStruct(name + "_args"));
        protocol.writeFieldBegin(new TField("dbname", TType.STRING, (short) 1));
        protocol.writeString(db);
        protocol.writeFieldEnd();
        if (tables instanceof String table) {
            protocol.writeFieldBegin(new TField("tbl_name", TType.STRING, (short) 2));
            protocol.writeString(table);
        } else {
            List<?> names = (List<?>) tables;
            protocol.writeFieldBegin(new TField("tbl_names", TType.LIST, (short) 2));
            protocol.writeListBegin(new TList(TType.STRING, names.size()));
            for (Object table : names) {
                protocol.writeString((String) table);
            }
            protocol.writeListEnd();
        }
        protocol.writeFieldEnd();
        protocol.writeFieldStop();
        protocol.writeStructEnd();
        protocol.writeMessageEnd();
        protocol.getTransport().flush();
        TMessage reply = protocol.readMessageBegin();
        assertThat(reply.type).isEqualTo(TMessageType.REPLY);
        assertThat(reply.seqid).isEqualTo(7);
        protocol.readStructBegin();
        return protocol;
    }

    @Test
    void legacyGetTableAndGetTableObjectsByNameAreAnswered() throws Exception {
        ThriftHiveMetastore.Client client = client();
        client.create_database(database("db"));
        client.create_table(table("db", "a"));
        client.create_table(table("db", "b"));

        TProtocol reply = legacyCall("get_table", "db", "A");
        TField field = reply.readFieldBegin();
        assertThat(field.id).isEqualTo((short) 0);
        Table a = new Table();
        a.read(reply);
        assertThat(a.getTableName()).isEqualTo("a");
        assertThat(a.getSd().getCols()).hasSize(2);

        reply = legacyCall("get_table", "db", "missing");
        field = reply.readFieldBegin();
        assertThat(field.id).isEqualTo((short) 2);
        NoSuchObjectException missing = new NoSuchObjectException();
        missing.read(reply);
        assertThat(missing.getMessage()).contains("db.missing");

        reply = legacyCall("get_table_objects_by_name", "db", List.of("b", "nope", "a"));
        field = reply.readFieldBegin();
        assertThat(field.id).isEqualTo((short) 0);
        TList list = reply.readListBegin();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < list.size; i++) {
            Table table = new Table();
            table.read(reply);
            names.add(table.getTableName());
        }
        assertThat(names).containsExactly("b", "a");
        assertThat(TreeCatHmsServer.servedCalls()).contains("get_table", "get_table_objects_by_name");
        // The generated calls still work on a connection that made legacy ones.
        assertThat(client.get_all_tables("db")).containsExactly("a", "b");
    }

    @Test
    void anUnknownCallIsUnknownMethod() throws Exception {
        ThriftHiveMetastore.Client client = client();
        // get_partitions_by_expr needs Hive's expression proxy: left unknown so clients fall back to by_filter.
        assertThatThrownBy(() -> client.get_partitions_by_expr(
                        new PartitionsByExprRequest("db", "t", java.nio.ByteBuffer.wrap(new byte[] {1}))))
                .isInstanceOfSatisfying(
                        TApplicationException.class,
                        e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
        // A name no IDL has, sent by hand.
        TSocket socket = hms.socket();
        TProtocol protocol = new TBinaryProtocol(socket);
        protocol.writeMessageBegin(new TMessage("no_such_call", TMessageType.CALL, 1));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldStop();
        protocol.writeStructEnd();
        protocol.writeMessageEnd();
        protocol.getTransport().flush();
        TMessage reply = protocol.readMessageBegin();
        assertThat(reply.type).isEqualTo(TMessageType.EXCEPTION);
        TApplicationException error = TApplicationException.readFrom(protocol);
        assertThat(error.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD);
        // The connection is still usable.
        assertThat(client.get_all_databases()).containsExactly("default");
        assertThat(TreeCatHmsServer.servedCalls())
                .contains("get_table_req", "alter_table_with_environment_context", "shutdown")
                .doesNotContain("get_partitions_by_expr", "get_partitions_with_specs");
    }

    /**
     * A stop ends the connections of idle clients (a Hive client holds its connection open between calls for hours)
     * instead of waiting for them to hang up: its serving thread is gone when it returns.
     */
    @Test
    void shutdownEndsTheConnectionsOfIdleClients() throws Exception {
        ThriftHiveMetastore.Client idle = hms.client();
        ThriftHiveMetastore.Client other = hms.client();
        assertThat(idle.get_all_databases()).containsExactly("default");
        assertThat(other.get_all_databases()).containsExactly("default");
        int port = hms.port();

        hms.server().shutdown();

        assertThat(hms.server().isServing()).isFalse();
        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .doesNotContain("treecat-hms-" + port);
        assertThatThrownBy(idle::get_all_databases).isInstanceOf(TTransportException.class);
        assertThatThrownBy(other::get_all_databases).isInstanceOf(TTransportException.class);
    }

    @Test
    void badBytesFailOnlyTheirConnection() throws Exception {
        try (Socket raw = new Socket("127.0.0.1", hms.port())) {
            OutputStream out = raw.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            raw.setSoTimeout(5000);
            assertThat(raw.getInputStream().read()).isEqualTo(-1); // closed by the server
        }
        try (Socket raw = new Socket("127.0.0.1", hms.port())) {
            // A truncated message: a strict header announcing a long name, then nothing more.
            OutputStream out = raw.getOutputStream();
            out.write(new byte[] {(byte) 0x80, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40, 'g', 'e', 't'});
            out.flush();
        }
        client().shutdown(); // fb303, as Spark sends on close: must not stop the server
        ThriftHiveMetastore.Client client = client();
        client.create_database(database("still_up"));
        assertThat(client.get_all_databases()).containsExactly("default", "still_up");
        assertThat(hms.server().isServing()).isTrue();
    }
}
