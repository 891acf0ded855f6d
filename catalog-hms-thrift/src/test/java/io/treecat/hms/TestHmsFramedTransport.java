package io.treecat.hms;

import static io.treecat.hms.TestHmsTransportLimits.await;
import static io.treecat.hms.TestHmsTransportLimits.closedByServer;
import static io.treecat.hms.TestHmsTransportLimits.usedHeap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The framed listener ({@code hms.framed-transport}, Hive's {@code metastore.thrift.framed.transport.enabled}) over
 * real sockets: Hive's clients work, a declared frame costs what was sent, and truncated, negative or oversized
 * frames fail their own connection only.
 */
class TestHmsFramedTransport {
    static final Duration IDLE = Duration.ofSeconds(2);
    static final int PER_CLIENT = 4;

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withTransport(
            HmsTransportConfig.DEFAULTS.withFramed(true).withConnections(IDLE, PER_CLIENT));

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    private Socket connect(String from) throws IOException {
        Socket socket = new Socket();
        opened.add(socket);
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", hms.port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private ThriftHiveMetastore.Client client(String from) throws Exception {
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(new TFramedTransport(new TSocket(connect(from)))));
    }

    private static byte[] frameHeader(int size) {
        byte[] header = new byte[4];
        TFramedTransport.encodeFrameSize(size, header);
        return header;
    }

    private void assertServes() throws Exception {
        assertThat(client("127.0.0.1").get_all_databases()).contains("default");
    }

    @Test
    void hivesOwnClientWithFramedTransport() throws Exception {
        Configuration conf = new Configuration(false);
        conf.set("metastore.thrift.uris", hms.uri());
        conf.set("metastore.thrift.framed.transport.enabled", "true");
        HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
        opened.add(client::close);
        Database db = new Database();
        db.setName("framed");
        client.createDatabase(db);
        assertThat(client.getAllDatabases()).contains("default", "framed");
    }

    @Test
    void stalledDeclaredFramesCostWhatWasSentAndCloseAfterTheIdleTimeout() throws Exception {
        // libthrift's TFramedTransport allocates the declared frame before reading it.
        int connections = 40;
        int declared = 15_000_000;
        long before = usedHeap();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Socket socket = connect("127.0.2." + (i + 1));
            OutputStream out = socket.getOutputStream();
            out.write(frameHeader(declared));
            out.write(new byte[1024]);
            out.flush();
            stalled.add(socket);
        }
        await(
                () -> stalled.stream().allMatch(s -> hms.server().openConnections(s.getLocalAddress()) == 1),
                Duration.ofSeconds(5),
                "all are accepted");
        Thread.sleep(500);
        long grown = usedHeap() - before;
        System.out.printf(
                "%d connections declaring frames of %d MB each, stalled: heap grew by %d MiB%n",
                connections, declared / 1_000_000, grown >> 20);
        assertThat(grown).isLessThan((long) connections * declared / 10);
        for (Socket socket : stalled) {
            assertThat(closedByServer(socket)).isTrue();
        }
        assertServes();
    }

    @Test
    void aFrameOverTheLimitOrNegativeClosesTheConnectionAtOnce() throws Exception {
        for (int size : new int[] {HmsTransportConfig.DEFAULT_MAX_FRAME_BYTES + 1, -5, Integer.MIN_VALUE}) {
            Socket socket = connect("127.0.0.1");
            socket.getOutputStream().write(frameHeader(size));
            socket.getOutputStream().flush();
            assertThat(socket.getInputStream().read()).as("frame size %d", size).isEqualTo(-1);
        }
        assertServes();
    }

    @Test
    void truncatedFramesFailTheirOwnConnection() throws Exception {
        // Cut short, then closed by the client.
        Socket cut = connect("127.0.0.1");
        cut.getOutputStream().write(frameHeader(100));
        cut.getOutputStream().write(new byte[10]);
        cut.shutdownOutput();
        assertThat(cut.getInputStream().read()).isEqualTo(-1);
        // Cut short inside the header.
        Socket header = connect("127.0.0.1");
        header.getOutputStream().write(new byte[] {0, 0});
        header.shutdownOutput();
        assertThat(header.getInputStream().read()).isEqualTo(-1);
        // Cut short and left open: closed after the idle timeout.
        Socket stalled = connect("127.0.0.1");
        stalled.getOutputStream().write(frameHeader(100));
        stalled.getOutputStream().write(new byte[10]);
        long started = System.nanoTime();
        assertThat(closedByServer(stalled)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(IDLE.dividedBy(2));
        // A frame whose message is cut short inside it: a protocol error on that connection only.
        Socket inside = connect("127.0.0.1");
        byte[] call = TestHmsTransportLimits.stringCall(1000, 10);
        inside.getOutputStream().write(frameHeader(call.length));
        inside.getOutputStream().write(call);
        assertThat(closedByServer(inside)).isTrue();
        assertServes();
    }

    @Test
    void aStringOverTheLimitIsAFramedProtocolError() throws Exception {
        Socket socket = connect("127.0.0.1");
        byte[] call = TestHmsTransportLimits.stringCall(HmsTransportConfig.DEFAULT_MAX_STRING_BYTES + 1, 16);
        socket.getOutputStream().write(frameHeader(call.length));
        socket.getOutputStream().write(call);
        TProtocol protocol = new TBinaryProtocol(new TFramedTransport(new TSocket(socket)));
        assertThat(protocol.readMessageBegin().type).isEqualTo(TMessageType.EXCEPTION);
        TApplicationException error = TApplicationException.readFrom(protocol);
        assertThat(error.getType()).isEqualTo(TApplicationException.PROTOCOL_ERROR);
        assertThat(error).hasMessage("String of 16777217 bytes larger than hms.max-string-size (16777216)");
        assertServes();
    }

    @Test
    void aRefusedConnectionGetsAFramedAnswer() throws Exception {
        for (int i = 0; i < PER_CLIENT; i++) {
            connect("127.0.0.5");
        }
        await(() -> openFrom("127.0.0.5") == PER_CLIENT, Duration.ofSeconds(5), "all are accepted");
        ThriftHiveMetastore.Client refused = client("127.0.0.5");
        assertThatThrownBy(refused::get_all_databases)
                .isInstanceOf(TApplicationException.class)
                .hasMessageStartingWith("Too many connections from this client address");
        assertServes();
    }

    private int openFrom(String address) {
        try {
            return hms.server().openConnections(java.net.InetAddress.getByName(address));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void largeBinaryWithinTheFrameLimitRoundTrips() throws Exception {
        // A 10 MB request in one frame: a get_database whose name is long, answered (no such database), not closed.
        ThriftHiveMetastore.Client client = client("127.0.0.1");
        String name = "y".repeat(10_000_000);
        assertThatThrownBy(() -> client.get_database(name))
                .isInstanceOf(org.apache.thrift.TException.class)
                .isNotInstanceOf(org.apache.thrift.transport.TTransportException.class)
                .isNotInstanceOf(TApplicationException.class);
        assertThat(client.get_all_databases()).contains("default");
    }
}
