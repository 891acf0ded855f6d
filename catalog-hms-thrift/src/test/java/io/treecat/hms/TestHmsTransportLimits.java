package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
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
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The unframed listener's limits over real sockets (docs/robustness.md, "Thrift: limits"): declared sizes cost what
 * was sent, each size limit answers a protocol error or closes the connection, idle connections are closed after the
 * idle timeout, and one address holds at most its share of the workers. The default size limits, with a short idle
 * timeout and a small per-client cap so the tests take seconds.
 */
class TestHmsTransportLimits {
    static final Duration IDLE = Duration.ofSeconds(2);
    static final int PER_CLIENT = 8;
    static final int PARTITIONS = 2_000;

    @RegisterExtension
    final HmsTestServer hms =
            HmsTestServer.withTransport(HmsTransportConfig.DEFAULTS.withConnections(IDLE, PER_CLIENT));

    private final List<Socket> raw = new ArrayList<>();

    @AfterEach
    void closeRaw() throws IOException {
        for (Socket socket : raw) {
            socket.close();
        }
    }

    /** A raw connection to the server from {@code from} (any 127.x.y.z is this host on Linux). */
    private Socket connect(String from) throws IOException {
        Socket socket = new Socket();
        raw.add(socket);
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", hms.port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private ThriftHiveMetastore.Client client(String from) throws Exception {
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(new TSocket(connect(from))));
    }

    /** The start of a get_database call whose name declares {@code declared} bytes, and {@code sent} of them. */
    static byte[] stringCall(int declared, int sent) throws Exception {
        TMemoryBuffer buffer = new TMemoryBuffer(sent + 64);
        TProtocol protocol = new TBinaryProtocol(buffer);
        protocol.writeMessageBegin(new TMessage("get_database", TMessageType.CALL, 1));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldBegin(new TField("name", TType.STRING, (short) 1));
        protocol.writeI32(declared);
        buffer.write(new byte[sent]);
        return java.util.Arrays.copyOf(buffer.getArray(), buffer.length());
    }

    static long usedHeap() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    static void await(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Reads until the server closes the connection; true if it did (EOF or reset) before the socket's timeout. */
    static boolean closedByServer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // an answer before the close is fine
            }
            return true;
        } catch (SocketException reset) {
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        }
    }

    private void assertServes(String from) throws Exception {
        assertThat(client(from).get_all_databases()).contains("default");
    }

    @Test
    void stalledDeclaredStringsCostWhatWasSentAndCloseAfterTheIdleTimeout() throws Exception {
        // The probe's attack at test scale: 40 connections each declare a 15 MiB name (under the 16 MiB limit, so it
        // is read) and send 1 KiB of it. libthrift allocated the declared 600 MiB at once.
        int connections = 40;
        int declared = 15 << 20;
        long before = usedHeap();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            // From as many addresses, so the per-client cap does not refuse them.
            Socket socket = connect("127.0.1." + (i + 1));
            OutputStream out = socket.getOutputStream();
            out.write(stringCall(declared, 1024));
            out.flush();
            stalled.add(socket);
        }
        await(() -> stalled.stream().allMatch(s -> openFrom(s) == 1), Duration.ofSeconds(5), "all are accepted");
        // Give the workers time to read the headers they were sent (the allocation, if any, happens there).
        Thread.sleep(500);
        long grown = usedHeap() - before;
        System.out.printf(
                "%d connections declaring %d MiB each, stalled: heap grew by %d MiB%n",
                connections, declared >> 20, grown >> 20);
        assertThat(grown).isLessThan((long) connections * declared / 10);

        long started = System.nanoTime();
        for (Socket socket : stalled) {
            assertThat(closedByServer(socket)).isTrue();
        }
        long closedAfterMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(closedAfterMillis).isLessThan(IDLE.toMillis() + 5_000);
        assertServes("127.0.0.1");
    }

    private int openFrom(Socket socket) {
        return hms.server().openConnections(socket.getLocalAddress());
    }

    @Test
    void aStringOverTheLimitIsAProtocolErrorNamingItAndEndsTheConnection() throws Exception {
        Socket socket = connect("127.0.0.1");
        socket.getOutputStream().write(stringCall(HmsTransportConfig.DEFAULT_MAX_STRING_BYTES + 1, 16));
        TProtocol protocol = new TBinaryProtocol(new TSocket(socket));
        TMessage reply = protocol.readMessageBegin();
        assertThat(reply.type).isEqualTo(TMessageType.EXCEPTION);
        TApplicationException error = TApplicationException.readFrom(protocol);
        assertThat(error.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
        assertThat(error.getMessage()).isEqualTo("String of 16777217 bytes larger than hms.max-string-size (16777216)");
        // The rest of that string is still on the wire: the server does not read it as a request.
        assertThat(closedByServer(socket)).isTrue();
        assertServes("127.0.0.1");
    }

    @Test
    void theLegacyCallsAnswerALimitTheSameWay() throws Exception {
        // get_table_objects_by_name is decoded by hand (LegacyCalls), not by Thrift's generated processor.
        Socket socket = connect("127.0.0.1");
        TProtocol protocol = new TBinaryProtocol(new TSocket(socket));
        protocol.writeMessageBegin(new TMessage("get_table_objects_by_name", TMessageType.CALL, 4));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldBegin(new TField("tbl_names", TType.LIST, (short) 2));
        protocol.writeListBegin(new TList(TType.STRING, HmsTransportConfig.DEFAULT_MAX_CONTAINER_ELEMENTS + 1));
        protocol.getTransport().flush();
        TMessage reply = protocol.readMessageBegin();
        assertThat(reply.type).isEqualTo(TMessageType.EXCEPTION);
        assertThat(reply.seqid).isEqualTo(4);
        TApplicationException error = TApplicationException.readFrom(protocol);
        assertThat(error.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
        assertThat(error.getMessage())
                .isEqualTo("Container of 1000001 elements larger than hms.max-container-elements (1000000)");
        assertThat(closedByServer(socket)).isTrue();
        assertServes("127.0.0.1");
    }

    @Test
    void aContainerOverTheLimitIsAProtocolErrorNamingIt() throws Exception {
        Socket socket = connect("127.0.0.1");
        TProtocol protocol = new TBinaryProtocol(new TSocket(socket));
        protocol.writeMessageBegin(new TMessage("get_partitions_by_names", TMessageType.CALL, 1));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldBegin(new TField("names", TType.LIST, (short) 3));
        protocol.writeListBegin(new TList(TType.STRING, HmsTransportConfig.DEFAULT_MAX_CONTAINER_ELEMENTS + 1));
        protocol.getTransport().flush();
        assertThat(protocol.readMessageBegin().type).isEqualTo(TMessageType.EXCEPTION);
        TApplicationException error = TApplicationException.readFrom(protocol);
        assertThat(error.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
        assertThat(error.getMessage())
                .isEqualTo("Container of 1000001 elements larger than hms.max-container-elements (1000000)");
        assertThat(closedByServer(socket)).isTrue();
        assertServes("127.0.0.1");
    }

    @Test
    void nestingDeeperThanTheLimitIsAProtocolErrorNamingIt() throws Exception {
        // An unknown field of structs nested 100 deep: Thrift skips unknown fields by recursion.
        Socket socket = connect("127.0.0.1");
        TProtocol protocol = new TBinaryProtocol(new TSocket(socket));
        protocol.writeMessageBegin(new TMessage("get_all_databases", TMessageType.CALL, 1));
        protocol.writeStructBegin(new TStruct("args"));
        for (int i = 0; i < 100; i++) {
            protocol.writeFieldBegin(new TField("deeper", TType.STRUCT, (short) 99));
        }
        protocol.getTransport().flush();
        assertThat(protocol.readMessageBegin().type).isEqualTo(TMessageType.EXCEPTION);
        TApplicationException error = TApplicationException.readFrom(protocol);
        assertThat(error.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
        assertThat(error.getMessage()).isEqualTo("Structs and containers nested deeper than hms.max-depth (64)");
        assertThat(closedByServer(socket)).isTrue();
        assertServes("127.0.0.1");
    }

    @Test
    void aMessageOverTheLimitClosesTheConnection() throws Exception {
        // 11 unknown binary fields of 10 MiB each: every field is within the string limit, the message is not.
        Socket socket = connect("127.0.0.1");
        TProtocol protocol = new TBinaryProtocol(new TSocket(socket));
        byte[] field = new byte[10 << 20];
        assertThatThrownBy(() -> {
                    protocol.writeMessageBegin(new TMessage("get_all_databases", TMessageType.CALL, 1));
                    protocol.writeStructBegin(new TStruct("args"));
                    for (int i = 0; i < 11; i++) {
                        protocol.writeFieldBegin(new TField("padding", TType.STRING, (short) (100 + i)));
                        protocol.writeBinary(java.nio.ByteBuffer.wrap(field));
                    }
                    protocol.writeFieldStop();
                    protocol.writeStructEnd();
                    protocol.getTransport().flush();
                    protocol.readMessageBegin();
                })
                .isInstanceOf(TTransportException.class);
        assertServes("127.0.0.1");
    }

    @Test
    void theMessageLimitIsPerRequestNotPerConnection() throws Exception {
        // 12 requests of 10 MiB on one connection: 120 MiB in all, each within the limit.
        ThriftHiveMetastore.Client client = client("127.0.0.1");
        String longName = "x".repeat(10 << 20);
        for (int i = 0; i < 12; i++) {
            // An answer (no such database, or a name refused), never a closed connection.
            assertThatThrownBy(() -> client.get_database(longName))
                    .isInstanceOf(org.apache.thrift.TException.class)
                    .isNotInstanceOf(TTransportException.class)
                    .isNotInstanceOf(TApplicationException.class);
        }
        assertThat(client.get_all_databases()).contains("default");
    }

    @Test
    void anIdleFloodFromOneAddressIsCappedAndClearsAfterTheIdleTimeout() throws Exception {
        InetAddress flooder = InetAddress.getByName("127.0.0.3");
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < PER_CLIENT; i++) {
            idle.add(connect("127.0.0.3"));
        }
        await(() -> hms.server().openConnections(flooder) == PER_CLIENT, Duration.ofSeconds(5), "all are accepted");

        // The next one from that address is answered with why, and closed.
        ThriftHiveMetastore.Client refused = client("127.0.0.3");
        assertThatThrownBy(refused::get_all_databases)
                .isInstanceOf(TApplicationException.class)
                .hasMessage("Too many connections from this client address (hms.max-connections-per-client); retry"
                        + " later");
        assertThat(hms.server().openConnections(flooder)).isEqualTo(PER_CLIENT);

        // Other addresses are not starved meanwhile.
        assertServes("127.0.0.4");
        assertServes("127.0.0.1");

        // The idle ones are closed after the idle timeout, and the address is served again.
        for (Socket socket : idle) {
            assertThat(closedByServer(socket)).isTrue();
        }
        await(() -> hms.server().openConnections(flooder) == 0, Duration.ofSeconds(5), "the idle ones are released");
        assertServes("127.0.0.3");
    }

    @Test
    void theIdleTimeoutIsBetweenCallsNotAConnectionLifetime() throws Exception {
        ThriftHiveMetastore.Client client = client("127.0.0.1");
        long end = System.nanoTime() + IDLE.multipliedBy(2).toNanos();
        int calls = 0;
        while (System.nanoTime() < end) {
            assertThat(client.get_all_databases()).contains("default");
            calls++;
            Thread.sleep(IDLE.toMillis() / 4);
        }
        assertThat(calls).isGreaterThan(4);
    }

    @Test
    void largeLegalRequestsFitTheDefaults() throws Exception {
        // Hive's own client: 2,000 partitions of 50 columns in one add_partitions, then all of them by name in one
        // call.
        HiveMetaStoreClient client = hms.hiveClient();
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName("events");
        table.setTableType("MANAGED_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        List<FieldSchema> columns = new ArrayList<>();
        for (int c = 0; c < 50; c++) {
            columns.add(new FieldSchema("column_" + c, "string", "a comment on column " + c));
        }
        sd.setCols(columns);
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        table.setSd(sd);
        table.setPartitionKeys(List.of(new FieldSchema("ds", "string", null)));
        table.setParameters(new HashMap<>());
        client.createTable(table);

        List<Partition> partitions = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            Partition partition = new Partition();
            partition.setDbName("sales");
            partition.setTableName("events");
            partition.setValues(List.of("p" + i));
            StorageDescriptor copy = sd.deepCopy();
            partition.setSd(copy);
            partition.setParameters(new HashMap<>());
            partitions.add(partition);
            names.add("ds=p" + i);
        }
        assertThat(client.add_partitions(partitions)).isEqualTo(PARTITIONS);
        assertThat(client.getPartitionsByNames("sales", "events", names)).hasSize(PARTITIONS);
    }
}
