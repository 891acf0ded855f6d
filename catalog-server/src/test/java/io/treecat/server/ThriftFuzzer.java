package io.treecat.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTablesRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.OpenTxnRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The HMS Thrift part of {@link LiveProtocolFuzzIT}: hostile arguments to a sample of calls through
 * Hive's own client ({@code ThriftHiveMetastore.Client}, what every engine's {@code HiveMetaStoreClient}
 * wraps), and raw frames on a socket: cut short, declaring sizes they never send, naming methods that
 * do not exist, carrying fields of the wrong type, or random bytes; and floods of idle connections.
 *
 * <p>A finding is what a client's mistake must never get: Hive's internal-error answer ({@code
 * MetaException} "Internal error: …"), a {@code TApplicationException} of type {@code INTERNAL_ERROR},
 * or a connection the server dropped after a well-formed call.
 */
final class ThriftFuzzer {
    static final String DATABASE = HttpFuzzer.NAMESPACE;
    static final String PARTITIONED = "hp";

    /** Filters Hive parses or refuses; the fuzzer also builds long chains and random text. */
    private static final List<String> FILTERS = List.of(
            "p = \"a\"",
            "p = 'a' and n > 1",
            "n like '((a+)+)+b'",
            "p like \"" + "a".repeat(24) + "\"",
            "n = 99999999999999999999999",
            "n = -1",
            "p = \"\u0000\"",
            "p <> ",
            "(((((",
            "p = 'a' or",
            "x = 1",
            "n between 1 and",
            "p in ()",
            "",
            "\uD800 = 1");

    private final LiveProtocolFuzzIT.Target server;
    private final HostileInputs inputs;
    private final LiveFuzzLedger ledger;
    private TSocket socket;
    private ThriftHiveMetastore.Client client;

    ThriftFuzzer(LiveProtocolFuzzIT.Target server, HostileInputs inputs, LiveFuzzLedger ledger) {
        this.server = server;
        this.inputs = inputs;
        this.ledger = ledger;
    }

    /** A call through Hive's client, as a lambda with what it creates (kind and name, or null). */
    private interface Call {
        void run(ThriftHiveMetastore.Client client) throws TException;
    }

    void callOne() {
        String name = name();
        String other = name();
        String created = null;
        Call call;
        String describe;
        switch (inputs.nextInt(17)) {
            case 0:
                call = hive -> hive.get_database(name);
                describe = "get_database(" + name + ")";
                break;
            case 1: {
                Database database = new Database(name, other, location(), parameters());
                call = hive -> hive.create_database(database);
                describe = "create_database(" + database + ")";
                created = "namespace " + asSent(name);
                break;
            }
            case 2: {
                GetTableRequest request = new GetTableRequest();
                request.setDbName(inputs.chance(60) ? DATABASE : name);
                request.setTblName(other);
                call = hive -> hive.get_table_req(request);
                describe = "get_table_req(" + request + ")";
                break;
            }
            case 3: {
                Table table = table(name);
                call = hive -> hive.create_table(table);
                describe = "create_table(" + table + ")";
                created = DATABASE.equals(table.getDbName()) ? "table " + DATABASE + " " + asSent(name) : null;
                break;
            }
            case 4:
                call = hive -> hive.get_tables(inputs.chance(60) ? DATABASE : name, other);
                describe = "get_tables(" + name + ", " + other + ")";
                break;
            case 5:
                call = hive -> hive.get_databases(name);
                describe = "get_databases(" + name + ")";
                break;
            case 6: {
                String filter = filter();
                short max = (short)
                        (int) inputs.pick(List.<Integer>of(-1, 0, 1, (int) Short.MAX_VALUE, (int) Short.MIN_VALUE, 5));
                call = hive -> hive.get_partitions_by_filter(DATABASE, PARTITIONED, filter, max);
                describe = "get_partitions_by_filter(fz, hp, " + filter + ", " + max + ")";
                break;
            }
            case 7: {
                ShowLocksRequest request = inputs.chance(50) ? null : new ShowLocksRequest();
                if (request != null && inputs.chance(50)) {
                    request.setDbname(name);
                    request.setTablename(other);
                }
                call = hive -> hive.show_locks(request);
                describe = "show_locks(" + request + ")";
                break;
            }
            case 8: {
                LockComponent component = new LockComponent(
                        inputs.pick(List.of(LockType.SHARED_READ, LockType.EXCLUSIVE)), LockLevel.TABLE, name);
                component.setTablename(other);
                LockRequest request = new LockRequest(List.of(component), name(), name());
                if (inputs.chance(50)) {
                    request.setTxnid(inputs.pick(List.of(-1L, 0L, Long.MAX_VALUE, Long.MIN_VALUE)));
                }
                call = hive -> hive.lock(request);
                describe = "lock(" + request + ")";
                break;
            }
            case 9: {
                HeartbeatRequest request = new HeartbeatRequest();
                request.setLockid(inputs.pick(List.of(-1L, 0L, Long.MAX_VALUE)));
                request.setTxnid(inputs.pick(List.of(-1L, 0L, Long.MAX_VALUE)));
                call = hive -> hive.heartbeat(request);
                describe = "heartbeat(" + request + ")";
                break;
            }
            case 10: {
                OpenTxnRequest request = new OpenTxnRequest(
                        inputs.pick(List.of(-1, 0, 1_000_000, Integer.MAX_VALUE, Integer.MIN_VALUE)), name, other);
                call = hive -> hive.open_txns(request);
                describe = "open_txns(" + request + ")";
                break;
            }
            case 11:
                call = hive -> hive.drop_table(name, other, false);
                describe = "drop_table(" + name + ", " + other + ")";
                break;
            case 12: {
                short max = (short) (int) inputs.pick(List.<Integer>of(-1, 0, (int) Short.MIN_VALUE, 3));
                call = hive -> hive.get_partition_names(inputs.chance(70) ? DATABASE : name, PARTITIONED, max);
                describe = "get_partition_names(" + name + ", " + max + ")";
                break;
            }
            case 13: {
                List<String> names = new ArrayList<>();
                for (int i = inputs.nextInt(5); i >= 0; i--) {
                    names.add(inputs.chance(10) ? null : name());
                }
                GetTablesRequest request = new GetTablesRequest();
                request.setDbName(DATABASE);
                request.setTblNames(names);
                call = hive -> hive.get_table_objects_by_name_req(request);
                describe = "get_table_objects_by_name_req(" + request + ")";
                break;
            }
            case 14: {
                Partition partition = new Partition();
                partition.setDbName(DATABASE);
                partition.setTableName(PARTITIONED);
                List<String> values = new ArrayList<>();
                for (int i = inputs.pick(List.of(0, 1, 2, 2, 3)); i > 0; i--) {
                    values.add(inputs.chance(10) ? null : name());
                }
                partition.setValues(values);
                if (inputs.chance(50)) {
                    partition.setSd(table("x").getSd());
                }
                call = hive -> hive.add_partition(partition);
                describe = "add_partition(" + partition + ")";
                break;
            }
            case 15:
                call = hive -> hive.get_config_value(name, other);
                describe = "get_config_value(" + name + ", " + other + ")";
                break;
            default:
                call = hive -> hive.get_fields(inputs.chance(60) ? DATABASE : name, other);
                describe = "get_fields(" + name + ", " + other + ")";
        }
        run(call, describe, created, List.of(name == null ? "" : name, other == null ? "" : other));
    }

    private void run(Call call, String describe, String created, List<String> names) {
        ledger.sent("thrift");
        String method = describe.substring(0, describe.indexOf('('));
        try {
            call.run(client());
            names.forEach(ledger::acknowledgedAsEncoded);
        } catch (MetaException e) {
            judgeMeta(method, e, describe);
            refused(created, e, describe);
        } catch (TApplicationException e) {
            // A call that declares no exception can refuse only this way, as Hive's own metastore does.
            if ((e.getType() == TApplicationException.INTERNAL_ERROR || e.getType() == TApplicationException.UNKNOWN)
                    && declaresExceptions(method)) {
                ledger.finding(
                        "Thrift " + method + ": TApplicationException type " + e.getType() + ": "
                                + LiveProtocolFuzzIT.errorKind(String.valueOf(e.getMessage())),
                        describe + " -> " + e.getMessage());
            }
            refused(created, e, describe);
            reconnect();
        } catch (TProtocolException e) {
            // Hive's client refused to write it (a required field unset): nothing reached the server whole.
            reconnect();
        } catch (TTransportException e) {
            ledger.finding("Thrift " + method + ": the server dropped the connection", describe + " -> " + e);
            reconnect();
        } catch (AlreadyExistsException e) {
            // Not a refusal of a new name: the object was there.
        } catch (TException e) {
            refused(created, e, describe);
        } catch (RuntimeException e) {
            // Hive's client failed while writing (a null where it expects a value): not sent whole.
            reconnect();
        }
    }

    /** Whether Hive's interface lets {@code method} answer with an exception of its own (a MetaException, …). */
    private static boolean declaresExceptions(String method) {
        for (Method candidate : ThriftHiveMetastore.Iface.class.getMethods()) {
            if (candidate.getName().equals(method)) {
                return Arrays.stream(candidate.getExceptionTypes()).anyMatch(type -> type != TException.class);
            }
        }
        return true;
    }

    private void judgeMeta(String method, MetaException e, String describe) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith("Internal error") || message.startsWith("Commit state unknown")) {
            // Long filters included: the filter limits of issue 24 answer them with a MetaException naming the limit.
            ledger.finding(
                    "Thrift " + method + ": MetaException " + LiveProtocolFuzzIT.errorKind(message),
                    describe + " -> " + message);
        }
    }

    private void refused(String created, TException e, String describe) {
        if (created != null) {
            ledger.refusedCreate(created, e.getClass().getSimpleName() + " " + describe);
        }
    }

    /** What Hive's client puts on the wire for {@code name}: UTF-8, a lone surrogate as {@code ?}. */
    private static String asSent(String name) {
        return name == null ? null : new String(name.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    private String name() {
        return inputs.chance(5) ? null : inputs.name();
    }

    private String location() {
        return inputs.pick(Arrays.asList(
                null,
                null,
                "",
                "relative/dir",
                "file:/tmp/../etc",
                server.root().resolve("escape-" + inputs.nextInt(1000)).toUri().toString(),
                server.root()
                        .resolve("warehouse")
                        .resolve("../escape-" + inputs.nextInt(1000))
                        .toString(),
                "hdfs://nowhere:1/x",
                "\u0000"));
    }

    private Map<String, String> parameters() {
        Map<String, String> parameters = new HashMap<>();
        for (int i = inputs.nextInt(4); i > 0; i--) {
            parameters.put(inputs.name(), inputs.name());
        }
        return parameters;
    }

    private Table table(String name) {
        List<FieldSchema> columns = new ArrayList<>();
        for (int i = inputs.nextInt(4); i > 0; i--) {
            columns.add(new FieldSchema(
                    inputs.chance(70) ? "c" + i : inputs.name(),
                    inputs.pick(List.of("int", "string", "array<int>", "map<string", "decimal(99,99)", "x", "")),
                    null));
        }
        List<FieldSchema> keys = new ArrayList<>();
        for (int i = inputs.nextInt(3); i > 0; i--) {
            keys.add(new FieldSchema(inputs.pick(List.of("p", "p", "", "a=b", "P", inputs.name())), "string", null));
        }
        StorageDescriptor sd = new StorageDescriptor(
                columns,
                location(),
                "org.apache.hadoop.mapred.TextInputFormat",
                "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
                false,
                inputs.pick(List.of(-1, 0, 1)),
                new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", Map.of()),
                List.of(),
                List.of(),
                Map.of());
        Table table = new Table();
        table.setDbName(inputs.chance(70) ? DATABASE : inputs.name());
        table.setTableName(name);
        table.setOwner(inputs.name());
        table.setSd(sd);
        table.setPartitionKeys(keys);
        table.setTableType(inputs.pick(List.of("MANAGED_TABLE", "EXTERNAL_TABLE", "VIRTUAL_VIEW", "", "x")));
        table.setParameters(parameters());
        return table;
    }

    private String filter() {
        if (inputs.chance(5)) {
            // A long chain, within and past the filter limits of issue 24 (10,000 terms once overflowed the stack).
            StringBuilder chain = new StringBuilder("p = 'a'");
            for (int i = inputs.pick(List.of(70, 500, 10_000)); i > 0; i--) {
                chain.append(inputs.chance(50) ? " and " : " or ")
                        .append("n = ")
                        .append(i);
            }
            return chain.toString();
        }
        if (inputs.chance(30)) {
            return inputs.randomChars(inputs.nextInt(40));
        }
        return inputs.pick(FILTERS);
    }

    private ThriftHiveMetastore.Client client() throws TTransportException {
        if (client == null) {
            socket = new TSocket("127.0.0.1", server.hmsPort());
            socket.setTimeout(60_000);
            socket.open();
            client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
        }
        return client;
    }

    private void reconnect() {
        close();
    }

    void close() {
        if (socket != null) {
            socket.close();
        }
        socket = null;
        client = null;
    }

    /** One raw frame of a kind a client library would not write. */
    void rawFrame() {
        ledger.sent("thrift-raw");
        int kind = inputs.nextInt(7);
        byte[] frame;
        switch (kind) {
            case 0: // a valid get_database call cut short
                byte[] whole = message("get_database", TType.STRING, "fz");
                frame = Arrays.copyOf(whole, inputs.nextInt(whole.length));
                break;
            case 1: // a method name declared far beyond the message limit, never sent
                frame = concat(
                        new byte[] {(byte) 0x80, 1, 0, 1}, int32(inputs.pick(List.of(0x7FFFFFF0, -5, 200 << 20))));
                break;
            case 2: // a string argument declared far beyond the limit, or negative
                frame = concat(
                        header("get_database"),
                        new byte[] {TType.STRING, 0, 1},
                        int32(inputs.pick(List.of(0x7FFFFFF0, -1, Integer.MIN_VALUE, 101 << 20))));
                break;
            case 3: // a method that does not exist: Hive answers UNKNOWN_METHOD
                frame = message(
                        inputs.chance(50) ? inputs.randomChars(1 + inputs.nextInt(30)) : "drop_everything",
                        TType.STRING,
                        "x");
                break;
            case 4: // the right method, a field of the wrong type
                frame = message(
                        "get_database", inputs.pick(List.of(TType.I32, TType.LIST, TType.STRUCT, TType.BOOL)), "x");
                break;
            case 5: // a list declared with a huge or negative size
                frame = concat(
                        header("get_table_objects_by_name_req"),
                        // field 1, a GetTablesRequest: dbName (1), then tblNames (2) declared but never sent
                        new byte[] {TType.STRUCT, 0, 1, TType.STRING, 0, 1},
                        int32(2),
                        "fz".getBytes(StandardCharsets.UTF_8),
                        new byte[] {TType.LIST, 0, 2, TType.STRING},
                        int32(inputs.pick(List.of(Integer.MAX_VALUE, -1, 50_000_000))));
                break;
            default: // random bytes
                frame = new byte[1 + inputs.nextInt(512)];
                inputs.random().nextBytes(frame);
        }
        String describe = "raw frame kind " + kind + ": " + LiveFuzzLedger.quote(hex(frame));
        try (Socket raw = new Socket("127.0.0.1", server.hmsPort())) {
            raw.setSoTimeout(3_000);
            OutputStream out = raw.getOutputStream();
            out.write(frame);
            out.flush();
            raw.shutdownOutput();
            InputStream in = raw.getInputStream();
            byte[] answer = in.readNBytes(4096);
            judgeRaw(kind, answer, describe);
        } catch (SocketTimeoutException e) {
            // The frame ended and the server waits for more, as a blocking Thrift server does: no finding.
        } catch (IOException e) {
            // Closed: the server refused the frame.
        }
    }

    private void judgeRaw(int kind, byte[] answer, String describe) {
        if (answer.length == 0) {
            return;
        }
        try {
            TBinaryProtocol protocol = new TBinaryProtocol(new TMemoryInputTransport(answer));
            TMessage message = protocol.readMessageBegin();
            if (message.type == TMessageType.EXCEPTION) {
                TApplicationException exception = TApplicationException.readFrom(protocol);
                if (exception.getType() == TApplicationException.INTERNAL_ERROR
                        || exception.getType() == TApplicationException.UNKNOWN) {
                    ledger.finding(
                            "Thrift raw frame kind " + kind + ": TApplicationException type " + exception.getType()
                                    + ": " + LiveProtocolFuzzIT.errorKind(String.valueOf(exception.getMessage())),
                            describe + " -> " + exception.getMessage());
                }
            }
        } catch (TException | RuntimeException unreadable) {
            // An answer that is cut off (the connection closed mid-write) is not a finding of its own.
        }
    }

    /**
     * Opens {@code connections} connections from 127.0.0.1 that send nothing, then checks that a normal client
     * connecting from {@code clientAddress} (a loopback address) is served while they stay open.
     */
    boolean servedDuringIdleFlood(int connections, String clientAddress) throws IOException {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                try {
                    idle.add(new Socket("127.0.0.1", server.hmsPort()));
                } catch (IOException refused) {
                    break; // the server (or the kernel's backlog) refuses more: that is allowed
                }
            }
            ledger.sent("thrift-idle-connections");
            return LiveProtocolFuzzIT.normalThriftClient(server.hmsPort(), 10_000, clientAddress) == null;
        } finally {
            for (Socket socket : idle) {
                socket.close();
            }
        }
    }

    /**
     * Connections that each declare a string just under the message limit and never send it: the memory
     * amplification of issue 24 item 2. Returns the server's resident memory while they are open.
     */
    long residentDuringDeclaredSizes(int connections, int declaredBytes) throws IOException, InterruptedException {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                Socket socket = new Socket("127.0.0.1", server.hmsPort());
                open.add(socket);
                socket.getOutputStream()
                        .write(concat(header("get_database"), new byte[] {TType.STRING, 0, 1}, int32(declaredBytes)));
                socket.getOutputStream().flush();
            }
            ledger.sent("thrift-declared-size-connections");
            Thread.sleep(2_000);
            return server.residentBytes();
        } finally {
            for (Socket socket : open) {
                socket.close();
            }
        }
    }

    private static byte[] header(String method) {
        try {
            TMemoryBuffer buffer = new TMemoryBuffer(64);
            TBinaryProtocol protocol = new TBinaryProtocol(buffer);
            protocol.writeMessageBegin(new TMessage(method, TMessageType.CALL, 1));
            return Arrays.copyOf(buffer.getArray(), buffer.length());
        } catch (TException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A call of {@code method} whose field 1 has {@code type} (a string {@code value} where it is one). */
    private static byte[] message(String method, byte type, String value) {
        try {
            TMemoryBuffer buffer = new TMemoryBuffer(64);
            TBinaryProtocol protocol = new TBinaryProtocol(buffer);
            protocol.writeMessageBegin(new TMessage(method, TMessageType.CALL, 1));
            protocol.writeStructBegin(new TStruct("args"));
            protocol.writeFieldBegin(new TField("name", type, (short) 1));
            switch (type) {
                case TType.STRING -> protocol.writeString(value);
                case TType.I32 -> protocol.writeI32(42);
                case TType.BOOL -> protocol.writeBool(true);
                case TType.LIST -> {
                    protocol.writeListBegin(new org.apache.thrift.protocol.TList(TType.STRING, 1));
                    protocol.writeString(value);
                    protocol.writeListEnd();
                }
                default -> {
                    protocol.writeStructBegin(new TStruct("s"));
                    protocol.writeFieldStop();
                    protocol.writeStructEnd();
                }
            }
            protocol.writeFieldEnd();
            protocol.writeFieldStop();
            protocol.writeStructEnd();
            protocol.writeMessageEnd();
            return Arrays.copyOf(buffer.getArray(), buffer.length());
        } catch (TException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] int32(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static byte[] concat(byte[]... parts) {
        return RawHttp.concat(parts);
    }

    private static String hex(byte[] bytes) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < Math.min(bytes.length, 64); i++) {
            text.append(String.format("%02x", bytes[i]));
        }
        return text.append(bytes.length > 64 ? "… (" + bytes.length + " bytes)" : "")
                .toString();
    }
}
