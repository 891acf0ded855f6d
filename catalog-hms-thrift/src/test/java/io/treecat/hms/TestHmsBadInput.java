package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Random;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad bytes on the socket beyond TestTreeCatHms's (an HTTP request, a truncated header, unknown
 * names): each fails its own connection or call only, and the server answers the next client.
 */
class TestHmsBadInput {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private TSocket socket() throws Exception {
        TSocket socket = hms.socket();
        socket.setTimeout(10_000);
        return socket;
    }

    private ThriftHiveMetastore.Client client() throws Exception {
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(socket()));
    }

    /** The server is up and answers a fresh client, which can also write. */
    private void assertStillServing(String name) throws Exception {
        ThriftHiveMetastore.Client client = client();
        Database db = new Database();
        db.setName(name);
        client.create_database(db);
        assertThat(client.get_all_databases()).contains(name);
        assertThat(hms.server().isServing()).isTrue();
    }

    /** Writes raw bytes, then expects the server to close the connection without answering. */
    private void assertClosedAfter(byte[] bytes) throws Exception {
        try (Socket raw = new Socket("127.0.0.1", hms.port())) {
            raw.setSoTimeout(10_000);
            OutputStream out = raw.getOutputStream();
            out.write(bytes);
            out.flush();
            raw.shutdownOutput();
            InputStream in = raw.getInputStream();
            assertThat(in.readAllBytes()).isEmpty();
        }
    }

    @Test
    void randomBinaryGarbage() throws Exception {
        byte[] garbage = new byte[4096];
        new Random(42).nextBytes(garbage);
        garbage[0] = (byte) 0x80; // looks like a strict header, then nonsense
        garbage[1] = 0x01;
        assertClosedAfter(garbage);
        assertStillServing("after_random");
    }

    @Test
    void aStringLongerThanTheLimitIsRefusedWithoutReadingIt() throws Exception {
        // A strict CALL header whose name claims 2 GiB: refused at once, nothing allocated.
        assertClosedAfter(new byte[] {(byte) 0x80, 0x01, 0x00, 0x01, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 'x'});
        // A served call whose string argument claims 1 GiB.
        TSocket socket = socket();
        TProtocol protocol = new TBinaryProtocol(socket);
        protocol.writeMessageBegin(new TMessage("get_database", TMessageType.CALL, 1));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldBegin(new TField("name", TType.STRING, (short) 1));
        protocol.writeI32(1 << 30);
        protocol.getTransport().flush();
        // Answered as Hive's metastore answers it (a protocol error naming the limit), then closed: the rest of the
        // string is still on the wire.
        assertThat(protocol.readMessageBegin().type).isEqualTo(TMessageType.EXCEPTION);
        assertThat(TApplicationException.readFrom(protocol))
                .hasMessage("String of 1073741824 bytes larger than hms.max-string-size (16777216)");
        assertThatThrownBy(protocol::readMessageBegin).isInstanceOf(TTransportException.class);
        assertStillServing("after_long_string");
    }

    @Test
    void aCallCutShortInsideItsArguments() throws Exception {
        TSocket socket = socket();
        TProtocol protocol = new TBinaryProtocol(socket);
        protocol.writeMessageBegin(new TMessage("lock", TMessageType.CALL, 1));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldBegin(new TField("rqst", TType.STRUCT, (short) 1));
        protocol.writeFieldBegin(new TField("component", TType.LIST, (short) 1));
        protocol.getTransport().flush();
        socket.close();
        assertStillServing("after_cut_short");
        assertThat(hms.server().locks().size()).isZero();
    }

    @Test
    void argumentsOfTheWrongTypeAreSkippedAndTheCallFailsCleanly() throws Exception {
        // get_database's name sent as an i64: Thrift skips a field of the wrong type, so the call runs
        // without a name and answers an error on a connection that stays usable.
        TSocket socket = socket();
        TProtocol protocol = new TBinaryProtocol(socket);
        protocol.writeMessageBegin(new TMessage("get_database", TMessageType.CALL, 7));
        protocol.writeStructBegin(new TStruct("args"));
        protocol.writeFieldBegin(new TField("name", TType.I64, (short) 1));
        protocol.writeI64(12345L);
        protocol.writeFieldEnd();
        protocol.writeFieldStop();
        protocol.writeStructEnd();
        protocol.writeMessageEnd();
        protocol.getTransport().flush();
        TMessage reply = protocol.readMessageBegin();
        assertThat(reply.seqid).isEqualTo(7);
        if (reply.type == TMessageType.EXCEPTION) {
            TApplicationException error = TApplicationException.readFrom(protocol);
            assertThat(error.getMessage()).isNotEmpty();
        } else {
            ThriftHiveMetastore.get_database_result result = new ThriftHiveMetastore.get_database_result();
            result.read(protocol);
            assertThat(result.isSetSuccess()).isFalse();
            assertThat(result.getO1() != null || result.getO2() != null).isTrue();
        }
        protocol.readMessageEnd();
        // Same connection, a well-formed call.
        assertThat(new ThriftHiveMetastore.Client(protocol).get_all_databases()).containsExactly("default");
        assertStillServing("after_wrong_type");
    }

    @Test
    void aReplyOrOnewayWhereACallIsExpected() throws Exception {
        TSocket socket = socket();
        TProtocol protocol = new TBinaryProtocol(socket);
        protocol.writeMessageBegin(new TMessage("get_all_databases", TMessageType.REPLY, 3));
        protocol.writeStructBegin(new TStruct("result"));
        protocol.writeFieldStop();
        protocol.writeStructEnd();
        protocol.writeMessageEnd();
        protocol.getTransport().flush();
        // Thrift's processor answers the message by name whatever its type, or drops the connection: either way, only
        // this one.
        try {
            TMessage reply = protocol.readMessageBegin();
            assertThat(reply.seqid).isEqualTo(3);
        } catch (TTransportException closed) {
            // closed by the server
        }
        assertStillServing("after_reply");
    }

    @Test
    void manyBadConnectionsInARowDoNotExhaustTheServer() throws Exception {
        for (int i = 0; i < 300; i++) {
            assertClosedAfter(new byte[] {(byte) 0x80, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 'g'});
        }
        assertStillServing("after_many");
    }
}
