package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.UnknownDBException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolDecorator;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;

/**
 * Calls Hive 4 removed from its IDL that Spark's built-in Hive 2.3 client (and Iceberg's HiveCatalog
 * through it) still send: {@code get_table} and {@code get_table_objects_by_name}, decoded and
 * answered by hand with the Hive 2.3/3.1 field ids. Every other message goes to the generated
 * processor, which sees the message header again.
 *
 * <pre>
 * Table get_table(1:string dbname, 2:string tbl_name) throws (1:MetaException o1, 2:NoSuchObjectException o2)
 * list&lt;Table&gt; get_table_objects_by_name(1:string dbname, 2:list&lt;string&gt; tbl_names)
 *     throws (1:MetaException o1, 2:InvalidOperationException o2, 3:UnknownDBException o3)   // 2.x; 3.x declares none
 * </pre>
 */
final class LegacyCalls implements TProcessor {
    static final Set<String> NAMES = Set.of("get_table", "get_table_objects_by_name");

    private final HmsTableCalls tables;
    private final TProcessor delegate;

    LegacyCalls(HmsTableCalls tables, TProcessor delegate) {
        this.tables = requireNonNull(tables, "tables is null");
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    @Override
    public void process(TProtocol in, TProtocol out) throws TException {
        TMessage message = in.readMessageBegin();
        switch (message.name) {
            case "get_table", "get_table_objects_by_name" -> {
                try {
                    if (message.name.equals("get_table")) {
                        getTable(message, in, out);
                    } else {
                        getTableObjectsByName(message, in, out);
                    }
                } catch (TProtocolException e) {
                    // Arguments over a limit or malformed (writing a reply throws no TProtocolException): answered
                    // as Thrift's ProcessFunction answers them for every generated call.
                    out.writeMessageBegin(new TMessage(message.name, TMessageType.EXCEPTION, message.seqid));
                    new TApplicationException(TApplicationException.PROTOCOL_ERROR, e.getMessage()).write(out);
                    out.writeMessageEnd();
                    out.getTransport().flush();
                }
            }
            default ->
                delegate.process(
                        new TProtocolDecorator(in) {
                            @Override
                            public TMessage readMessageBegin() {
                                return message;
                            }
                        },
                        out);
        }
    }

    private void getTable(TMessage message, TProtocol in, TProtocol out) throws TException {
        String db = null;
        String name = null;
        in.readStructBegin();
        for (TField field = in.readFieldBegin(); field.type != TType.STOP; field = in.readFieldBegin()) {
            if (field.id == 1 && field.type == TType.STRING) {
                db = in.readString();
            } else if (field.id == 2 && field.type == TType.STRING) {
                name = in.readString();
            } else {
                TProtocolUtil.skip(in, field.type);
            }
            in.readFieldEnd();
        }
        in.readStructEnd();
        in.readMessageEnd();
        Table table;
        try {
            table = tables.legacyGetTable(db, name);
        } catch (Exception e) {
            fail(
                    message,
                    out,
                    HmsErrors.map("get_table_req", e),
                    List.of(MetaException.class, NoSuchObjectException.class));
            return;
        }
        reply(message, out, new TField("success", TType.STRUCT, (short) 0), table);
    }

    private void getTableObjectsByName(TMessage message, TProtocol in, TProtocol out) throws TException {
        String db = null;
        List<String> names = new ArrayList<>();
        in.readStructBegin();
        for (TField field = in.readFieldBegin(); field.type != TType.STOP; field = in.readFieldBegin()) {
            if (field.id == 1 && field.type == TType.STRING) {
                db = in.readString();
            } else if (field.id == 2 && field.type == TType.LIST) {
                TList list = in.readListBegin();
                for (int i = 0; i < list.size; i++) {
                    names.add(in.readString());
                }
                in.readListEnd();
            } else {
                TProtocolUtil.skip(in, field.type);
            }
            in.readFieldEnd();
        }
        in.readStructEnd();
        in.readMessageEnd();
        List<Table> found;
        try {
            found = tables.legacyGetTableObjectsByName(db, names);
        } catch (Exception e) {
            fail(
                    message,
                    out,
                    HmsErrors.map("get_table_objects_by_name_req", e),
                    List.of(MetaException.class, InvalidOperationException.class, UnknownDBException.class));
            return;
        }
        out.writeMessageBegin(new TMessage(message.name, TMessageType.REPLY, message.seqid));
        out.writeStructBegin(new TStruct(message.name + "_result"));
        out.writeFieldBegin(new TField("success", TType.LIST, (short) 0));
        out.writeListBegin(new TList(TType.STRUCT, found.size()));
        for (Table table : found) {
            table.write(out);
        }
        out.writeListEnd();
        out.writeFieldEnd();
        out.writeFieldStop();
        out.writeStructEnd();
        out.writeMessageEnd();
        out.getTransport().flush();
    }

    /**
     * Answers a failure (mapped by {@link HmsErrors}) as the exception field {@code o<n>} it is of the
     * call's {@code declared} exceptions (o1 first), anything else as o1, a MetaException.
     */
    private static void fail(
            TMessage message, TProtocol out, TException failure, List<Class<? extends TException>> declared)
            throws TException {
        for (int i = 1; i < declared.size(); i++) {
            if (declared.get(i).isInstance(failure)) {
                reply(message, out, new TField("o" + (i + 1), TType.STRUCT, (short) (i + 1)), (TBase<?, ?>) failure);
                return;
            }
        }
        reply(
                message,
                out,
                new TField("o1", TType.STRUCT, (short) 1),
                failure instanceof MetaException meta ? meta : new MetaException(failure.getMessage()));
    }

    /** A result struct with one field set: the value, or one declared exception. */
    private static void reply(TMessage message, TProtocol out, TField field, TBase<?, ?> value) throws TException {
        out.writeMessageBegin(new TMessage(message.name, TMessageType.REPLY, message.seqid));
        out.writeStructBegin(new TStruct(message.name + "_result"));
        out.writeFieldBegin(field);
        value.write(out);
        out.writeFieldEnd();
        out.writeFieldStop();
        out.writeStructEnd();
        out.writeMessageEnd();
        out.getTransport().flush();
    }
}
