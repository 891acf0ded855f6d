package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.hive.metastore.api.AbortTxnRequest;
import org.apache.hadoop.hive.metastore.api.AbortTxnsRequest;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.CommitTxnRequest;
import org.apache.hadoop.hive.metastore.api.ConfigValSecurityException;
import org.apache.hadoop.hive.metastore.api.CreateCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropCatalogRequest;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.ForeignKeysRequest;
import org.apache.hadoop.hive.metastore.api.GetCatalogRequest;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatTxnRangeRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.InvalidPartitionException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.NotNullConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.OpenTxnRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionEventType;
import org.apache.hadoop.hive.metastore.api.PartitionListComposingSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRequest;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.TruncateTableRequest;
import org.apache.hadoop.hive.metastore.api.TxnAbortedException;
import org.apache.hadoop.hive.metastore.api.UniqueConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.UnknownTableException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TSocket;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input for every call issue 15 added, over one raw Thrift connection (Hive 4.1's generated client on a real
 * socket): null, empty and 100,000-character names, unknown catalogs, databases, tables, transactions and write ids,
 * filters that do not parse. Each refusal must be an exception Hive 4.0.1 answers with: the type named in the case
 * where Hive's handler picks one, else one the call declares in Hive's IDL (what Hive's handler turns its own failures
 * into); never a dropped connection, and an internal-error {@code TApplicationException} only for calls whose IDL
 * declares no exception at all, where Hive answers that too. After each: the same connection answers, the tree has no
 * new version, and the message names no server directory.
 */
class TestHmsNewCallsBadInput {
    private static final String HUGE = "x".repeat(100_000);
    /** A bad name: null, empty, oversized, and one that names nothing. */
    private static final List<String> BAD_NAMES = Arrays.asList(null, "", HUGE, "nope");

    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    private ThriftHiveMetastore.Client raw;
    private long committed;
    private long aborted;

    @FunctionalInterface
    interface Call {
        Object run() throws Exception;
    }

    /** One bad call, and the exception type Hive answers it with (null: any the call declares). */
    record Case(String call, String description, Call run, Class<? extends Exception> expected) {}

    @BeforeEach
    void seed() throws Exception {
        raw = client();
        raw.create_database(new Database("sales", null, null, new HashMap<>()));
        raw.create_table(table("events", List.of(new FieldSchema("region", "string", null))));
        raw.create_table(table("plain", List.of()));
        Partition eu = new Partition();
        eu.setDbName("sales");
        eu.setTableName("events");
        eu.setValues(List.of("eu"));
        raw.add_partition(eu);
        committed = raw.open_txns(new OpenTxnRequest(1, "alice", "host"))
                .getTxn_ids()
                .get(0);
        raw.commit_txn(new CommitTxnRequest(committed));
        aborted = raw.open_txns(new OpenTxnRequest(1, "alice", "host"))
                .getTxn_ids()
                .get(0);
        raw.abort_txn(new AbortTxnRequest(aborted));
        raw.get_metastore_db_uuid();
    }

    /** A connection that gives up after 10 s, so a server that stops answering fails the test, not hangs it. */
    private ThriftHiveMetastore.Client client() throws Exception {
        TSocket socket = hms.socket();
        socket.setTimeout(10_000);
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    }

    private static Table table(String name, List<FieldSchema> keys) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(new ArrayList<>(List.of(new FieldSchema("id", "bigint", null))));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        table.setSd(sd);
        table.setPartitionKeys(new ArrayList<>(keys));
        table.setParameters(new HashMap<>(Map.of("transactional", "true")));
        return table;
    }

    private static String shown(String name) {
        return name == null ? "null" : name.length() > 20 ? name.length() + " chars" : "'" + name + "'";
    }

    /** The exception types {@code call} declares in Hive's IDL, beyond TException. */
    private static Set<Class<?>> declared(String call) {
        return Arrays.stream(ThriftHiveMetastore.Iface.class.getMethods())
                .filter(method -> method.getName().equals(call))
                .flatMap(method -> Arrays.stream(method.getExceptionTypes()))
                .filter(type -> type != TException.class)
                .collect(Collectors.toSet());
    }

    private void sweep(List<Case> cases) throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (Case bad : cases) {
            String what = bad.call() + ": " + bad.description();
            long before = hms.catalog().lastVid();
            Throwable thrown = catchThrowable(bad.run()::run);
            soft.assertThat(thrown).as(what + " is refused").isNotNull();
            if (thrown != null) {
                Set<Class<?>> declared = declared(bad.call());
                if (bad.expected() != null) {
                    soft.assertThat(thrown).as(what).isInstanceOf(bad.expected());
                } else if (declared.isEmpty()) {
                    soft.assertThat(thrown).as(what).isInstanceOf(TApplicationException.class);
                } else {
                    soft.assertThat(declared)
                            .as(what + ": " + thrown + " is declared by the call")
                            .anyMatch(type -> type.isInstance(thrown));
                }
                if (thrown instanceof TApplicationException application) {
                    if (bad.expected() != TApplicationException.class) {
                        soft.assertThat(declared)
                                .as(what + ": internal error where Hive declares")
                                .isEmpty();
                    }
                    soft.assertThat(application.getType()).as(what).isEqualTo(TApplicationException.INTERNAL_ERROR);
                }
                soft.assertThat(String.valueOf(thrown.getMessage()))
                        .as(what + ": no server directory in the message")
                        .doesNotContain(hms.directory().toString());
            }
            soft.assertThat(hms.catalog().lastVid())
                    .as(what + ": no version written")
                    .isEqualTo(before);
            try {
                soft.assertThat(raw.get_all_databases())
                        .as(what + ": connection answers")
                        .contains("sales");
            } catch (TException e) {
                soft.fail(what + ": the connection broke: " + e);
                raw = client();
            }
        }
        soft.assertThat(hms.server().isServing()).isTrue();
        soft.assertAll();
    }

    private static Case refused(String call, String description, Call run, Class<? extends Exception> expected) {
        return new Case(call, description, run, expected);
    }

    private static Case refused(String call, String description, Call run) {
        return new Case(call, description, run, null);
    }

    @Test
    void tableCalls() throws Exception {
        Table plain = raw.get_table_req(new GetTableRequest("sales", "plain")).getTable();
        List<Case> cases = new ArrayList<>();
        for (String name : BAD_NAMES) {
            Class<? extends Exception> unknown = name == null ? null : InvalidOperationException.class;
            cases.add(refused(
                    "alter_table",
                    "table " + shown(name),
                    () -> {
                        raw.alter_table("sales", name, plain);
                        return null;
                    },
                    unknown));
            cases.add(refused("alter_table", "database " + shown(name), () -> {
                raw.alter_table(name, "plain", plain);
                return null;
            }));
            cases.add(refused(
                    "alter_table_with_cascade",
                    "table " + shown(name),
                    () -> {
                        raw.alter_table_with_cascade("sales", name, plain, true);
                        return null;
                    },
                    unknown));
            Class<? extends Exception> missing = name == null ? MetaException.class : UnknownTableException.class;
            cases.add(refused("get_fields", "table " + shown(name), () -> raw.get_fields("sales", name), missing));
            cases.add(refused("get_schema", "table " + shown(name), () -> raw.get_schema("sales", name), missing));
            cases.add(refused(
                    "get_fields_with_environment_context",
                    "database " + shown(name),
                    () -> raw.get_fields_with_environment_context(name, "plain", null)));
            cases.add(refused(
                    "get_schema_with_environment_context",
                    "database " + shown(name),
                    () -> raw.get_schema_with_environment_context(name, "plain", null)));
            cases.add(refused(
                    "truncate_table",
                    "table " + shown(name),
                    () -> {
                        raw.truncate_table("sales", name, null);
                        return null;
                    },
                    MetaException.class));
            cases.add(refused(
                    "truncate_table",
                    "database " + shown(name),
                    () -> {
                        raw.truncate_table(name, "plain", null);
                        return null;
                    },
                    MetaException.class));
        }
        cases.add(refused(
                "alter_table",
                "null table",
                () -> {
                    raw.alter_table("sales", "plain", null);
                    return null;
                },
                InvalidOperationException.class));
        cases.add(refused("truncate_table_req", "null request", () -> raw.truncate_table_req(null)));
        cases.add(refused(
                "truncate_table_req",
                "oversized table",
                () -> raw.truncate_table_req(new TruncateTableRequest("sales", HUGE)),
                MetaException.class));
        sweep(cases);
    }

    @Test
    void constraintGettersAnswerEmptyForUnknownTablesAndRefuseNullNames() throws Exception {
        for (String name : List.of("", HUGE, "nope")) {
            assertThat(raw.get_primary_keys(new PrimaryKeysRequest("sales", name))
                            .getPrimaryKeys())
                    .isEmpty();
            assertThat(raw.get_foreign_keys(new ForeignKeysRequest(null, null, name, "plain"))
                            .getForeignKeys())
                    .isEmpty();
            assertThat(raw.get_unique_constraints(new UniqueConstraintsRequest("hive", "sales", name))
                            .getUniqueConstraints())
                    .isEmpty();
            if (!HUGE.equals(name)) {
                // An unknown catalog has no constraints, as on Hive.
                assertThat(raw.get_not_null_constraints(new NotNullConstraintsRequest(name, "sales", "plain"))
                                .getNotNullConstraints())
                        .isEmpty();
            }
        }
        List<Case> cases = new ArrayList<>();
        // A catalog name no tree path can hold is refused by the call routing, for every call (HmsDispatch).
        cases.add(refused(
                "get_not_null_constraints",
                "oversized catalog",
                () -> raw.get_not_null_constraints(new NotNullConstraintsRequest(HUGE, "sales", "plain")),
                MetaException.class));
        cases.add(refused("get_primary_keys", "null request", () -> raw.get_primary_keys(null)));
        cases.add(refused(
                "get_foreign_keys",
                "no table on either side",
                () -> raw.get_foreign_keys(new ForeignKeysRequest(null, null, null, null))));
        cases.add(refused("get_unique_constraints", "null request", () -> raw.get_unique_constraints(null)));
        cases.add(refused("get_not_null_constraints", "null request", () -> raw.get_not_null_constraints(null)));
        cases.add(refused("get_default_constraints", "null request", () -> raw.get_default_constraints(null)));
        cases.add(refused("get_check_constraints", "null request", () -> raw.get_check_constraints(null)));
        sweep(cases);
    }

    @Test
    void catalogAndConfigurationCalls() throws Exception {
        List<Case> cases = new ArrayList<>();
        for (String name : BAD_NAMES) {
            Class<? extends Exception> unknown = name == null ? MetaException.class : NoSuchObjectException.class;
            cases.add(refused("get_catalog", shown(name), () -> raw.get_catalog(new GetCatalogRequest(name)), unknown));
            cases.add(refused(
                    "drop_catalog",
                    shown(name),
                    () -> {
                        // An unknown catalog drops quietly unless ifExists is false (Hive 4.1's field, true when
                        // unset).
                        DropCatalogRequest drop = new DropCatalogRequest(name);
                        drop.setIfExists(false);
                        raw.drop_catalog(drop);
                        return null;
                    },
                    unknown));
            if (!"nope".equals(name)) {
                cases.add(refused("create_catalog", shown(name), () -> {
                    raw.create_catalog(new CreateCatalogRequest(new Catalog(name, hms.warehouse() + "/c")));
                    return null;
                }));
            }
            cases.add(refused("getMetaConf", shown(name), () -> raw.getMetaConf(name), MetaException.class));
            cases.add(refused(
                    "setMetaConf",
                    shown(name),
                    () -> {
                        raw.setMetaConf(name, "x");
                        return null;
                    },
                    MetaException.class));
            if (name != null) {
                cases.add(refused(
                        "get_config_value",
                        shown(name),
                        () -> raw.get_config_value(name, "d"),
                        ConfigValSecurityException.class));
            }
        }
        cases.add(refused("get_catalog", "null request", () -> raw.get_catalog(null)));
        cases.add(refused("drop_catalog", "null request", () -> {
            raw.drop_catalog(null);
            return null;
        }));
        cases.add(refused(
                "drop_catalog",
                "hive",
                () -> {
                    raw.drop_catalog(new DropCatalogRequest("hive"));
                    return null;
                },
                MetaException.class));
        cases.add(refused(
                "create_catalog",
                "null request",
                () -> {
                    raw.create_catalog(null);
                    return null;
                },
                InvalidObjectException.class));
        cases.add(refused(
                "create_catalog",
                "no location",
                () -> {
                    raw.create_catalog(new CreateCatalogRequest(new Catalog("c2", null)));
                    return null;
                },
                InvalidObjectException.class));
        cases.add(refused(
                "setMetaConf",
                "null value of a time",
                () -> {
                    raw.setMetaConf("metastore.client.socket.timeout", null);
                    return null;
                },
                MetaException.class));
        cases.add(refused(
                "setMetaConf",
                "oversized value of a time",
                () -> {
                    raw.setMetaConf("metastore.client.socket.timeout", HUGE);
                    return null;
                },
                MetaException.class));
        sweep(cases);
        // A null key is Hive's default, not a refusal.
        assertThat(raw.get_config_value(null, "d")).isEqualTo("d");
    }

    private static PartitionSpec listSpec(String db, String table, String value) {
        Partition partition = new Partition();
        partition.setDbName(db);
        partition.setTableName(table);
        partition.setValues(value == null ? null : List.of(value));
        PartitionSpec spec = new PartitionSpec(db, table, null);
        spec.setPartitionList(new PartitionListComposingSpec(new ArrayList<>(List.of(partition))));
        return spec;
    }

    @Test
    void partitionSpecValueExchangeAndEventCalls() throws Exception {
        List<FieldSchema> region = List.of(new FieldSchema("region", "string", null));
        Map<String, String> eu = Map.of("region", "eu");
        List<Case> cases = new ArrayList<>();
        for (String name : BAD_NAMES) {
            Class<? extends Exception> notFound = name == null ? MetaException.class : null;
            cases.add(refused(
                    "get_partitions_pspec",
                    "table " + shown(name),
                    () -> raw.get_partitions_pspec("sales", name, -1),
                    notFound));
            cases.add(refused(
                    "get_part_specs_by_filter",
                    "database " + shown(name),
                    () -> raw.get_part_specs_by_filter(name, "events", "region = 'eu'", -1)));
            if (name != null) { // tblName is required: Thrift's client refuses to send it unset
                cases.add(refused(
                        "get_partition_values",
                        "table " + shown(name),
                        () -> raw.get_partition_values(new PartitionValuesRequest("sales", name, region)),
                        MetaException.class));
            }
            cases.add(refused(
                    "add_partitions_pspec",
                    "table " + shown(name),
                    () -> raw.add_partitions_pspec(List.of(listSpec("sales", name, "us")))));
            cases.add(refused(
                    "exchange_partition",
                    "destination " + shown(name),
                    () -> raw.exchange_partition(eu, "sales", "events", "sales", name),
                    MetaException.class));
            cases.add(refused(
                    "exchange_partitions",
                    "source database " + shown(name),
                    () -> raw.exchange_partitions(eu, name, "events", "sales", "plain"),
                    MetaException.class));
            cases.add(refused(
                    "markPartitionForEvent",
                    "table " + shown(name),
                    () -> {
                        raw.markPartitionForEvent("sales", name, eu, PartitionEventType.LOAD_DONE);
                        return null;
                    },
                    name == null ? MetaException.class : UnknownTableException.class));
            cases.add(refused(
                    "isPartitionMarkedForEvent",
                    "database " + shown(name),
                    () -> raw.isPartitionMarkedForEvent(name, "events", eu, PartitionEventType.LOAD_DONE),
                    name == null ? MetaException.class : UnknownTableException.class));
        }
        for (String filter : List.of("region = = 'eu'", "region", "(((", "region = '" + HUGE)) {
            String what = "filter " + shown(filter);
            cases.add(refused(
                    "get_part_specs_by_filter",
                    what,
                    () -> raw.get_part_specs_by_filter("sales", "events", filter, -1),
                    MetaException.class));
            PartitionValuesRequest values = new PartitionValuesRequest("sales", "events", region);
            values.setFilter(filter);
            cases.add(
                    refused("get_partition_values", what, () -> raw.get_partition_values(values), MetaException.class));
        }
        cases.add(refused("get_partition_values", "null request", () -> raw.get_partition_values(null)));
        cases.add(refused(
                "get_partition_values",
                "no keys",
                () -> raw.get_partition_values(new PartitionValuesRequest("sales", "events", List.of())),
                MetaException.class));
        cases.add(refused(
                "add_partitions_pspec",
                "null values",
                () -> raw.add_partitions_pspec(List.of(listSpec("sales", "events", null)))));
        cases.add(refused(
                "add_partitions_pspec",
                "null names",
                () -> raw.add_partitions_pspec(List.of(listSpec(null, null, "us")))));
        cases.add(refused(
                "exchange_partitions",
                "null spec",
                () -> raw.exchange_partitions(null, "sales", "events", "sales", "plain"),
                MetaException.class));
        cases.add(refused(
                "exchange_partition",
                "empty spec",
                () -> raw.exchange_partition(Map.of(), "sales", "events", "sales", "plain"),
                MetaException.class));
        cases.add(refused(
                "markPartitionForEvent",
                "null spec",
                () -> {
                    raw.markPartitionForEvent("sales", "events", null, PartitionEventType.LOAD_DONE);
                    return null;
                },
                MetaException.class));
        cases.add(refused(
                "markPartitionForEvent",
                "null event type",
                () -> {
                    raw.markPartitionForEvent("sales", "events", eu, null);
                    return null;
                },
                MetaException.class));
        cases.add(refused(
                "markPartitionForEvent",
                "unknown key",
                () -> {
                    raw.markPartitionForEvent("sales", "events", Map.of("nokey", "eu"), PartitionEventType.LOAD_DONE);
                    return null;
                },
                InvalidPartitionException.class));
        cases.add(refused(
                "markPartitionForEvent",
                "oversized value",
                () -> {
                    raw.markPartitionForEvent("sales", "events", Map.of("region", HUGE), PartitionEventType.LOAD_DONE);
                    return null;
                },
                MetaException.class));
        sweep(cases);
        assertThat(raw.get_partition_names("sales", "events", (short) -1)).containsExactly("region=eu");
    }

    /**
     * A request struct without a field Hive's IDL marks required (Hive's own client refuses to send one, so it is
     * written by hand): the server answers Thrift's PROTOCOL_ERROR, as Hive's generated processor does, and changes
     * nothing. That connection is then out of step (libthrift stops reading the call's arguments at the failed struct
     * and leaves the rest on the wire, on Hive's server as on TreeCat's), so each call uses a connection of its own
     * and a new connection is asked afterwards.
     */
    @Test
    void aRequestWithoutARequiredFieldIsAProtocolError() throws Exception {
        long before = hms.catalog().lastVid();
        for (String call : List.of(
                "get_primary_keys",
                "get_unique_constraints",
                "get_check_constraints",
                "get_partition_values",
                "allocate_table_write_ids")) {
            TSocket socket = hms.socket();
            socket.setTimeout(10_000);
            TProtocol protocol = new TBinaryProtocol(socket);
            protocol.writeMessageBegin(new TMessage(call, TMessageType.CALL, 99));
            protocol.writeStructBegin(new TStruct("args"));
            protocol.writeFieldBegin(new TField("request", TType.STRUCT, (short) 1));
            protocol.writeStructBegin(new TStruct("request"));
            protocol.writeFieldStop(); // none of its fields, required ones included
            protocol.writeStructEnd();
            protocol.writeFieldEnd();
            protocol.writeFieldStop();
            protocol.writeStructEnd();
            protocol.writeMessageEnd();
            protocol.getTransport().flush();
            TMessage reply = protocol.readMessageBegin();
            TApplicationException answer = TApplicationException.readFrom(protocol);
            protocol.readMessageEnd();
            assertThat(reply.type).as(call).isEqualTo(TMessageType.EXCEPTION);
            assertThat(answer.getType()).as(call).isEqualTo(TApplicationException.PROTOCOL_ERROR);
            assertThat(answer.getMessage()).as(call).startsWith("Required field");
            socket.close();
            assertThat(hms.client().get_all_databases()).as(call).contains("sales");
        }
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        assertThat(hms.server().isServing()).isTrue();
    }

    @Test
    void transactionCalls() throws Exception {
        long unknown = 987_654_321L;
        List<Case> cases = new ArrayList<>();
        for (long id : List.of(unknown, -1L, 0L, Long.MAX_VALUE)) {
            cases.add(refused(
                    "commit_txn",
                    "unknown id " + id,
                    () -> {
                        raw.commit_txn(new CommitTxnRequest(id));
                        return null;
                    },
                    NoSuchTxnException.class));
            cases.add(refused(
                    "abort_txn",
                    "unknown id " + id,
                    () -> {
                        raw.abort_txn(new AbortTxnRequest(id));
                        return null;
                    },
                    NoSuchTxnException.class));
            AllocateTableWriteIdsRequest allocate = new AllocateTableWriteIdsRequest("sales", "plain");
            allocate.setTxnIds(List.of(id));
            cases.add(refused(
                    "allocate_table_write_ids",
                    "unknown id " + id,
                    () -> raw.allocate_table_write_ids(allocate),
                    MetaException.class));
        }
        cases.add(refused(
                "commit_txn",
                "aborted",
                () -> {
                    raw.commit_txn(new CommitTxnRequest(aborted));
                    return null;
                },
                TxnAbortedException.class));
        cases.add(refused(
                "abort_txn",
                "committed",
                () -> {
                    raw.abort_txn(new AbortTxnRequest(committed));
                    return null;
                },
                NoSuchTxnException.class));
        // No request: Hive fails inside with an exception commit_txn does not declare, so its client sees an internal
        // error; TreeCat answers the same.
        cases.add(refused(
                "commit_txn",
                "null request",
                () -> {
                    raw.commit_txn(null);
                    return null;
                },
                TApplicationException.class));
        // open_txns, heartbeat_txn_range, compact and compact2 declare no exception: Hive answers internal errors.
        for (int count : List.of(0, -5)) {
            cases.add(refused(
                    "open_txns", "count " + count, () -> raw.open_txns(new OpenTxnRequest(count, "alice", "host"))));
        }
        cases.add(refused("open_txns", "null request", () -> raw.open_txns(null)));
        cases.add(refused(
                "heartbeat_txn_range", "reversed", () -> raw.heartbeat_txn_range(new HeartbeatTxnRangeRequest(5, 1))));
        cases.add(refused(
                "heartbeat_txn_range",
                "oversized",
                () -> raw.heartbeat_txn_range(new HeartbeatTxnRangeRequest(1, Long.MAX_VALUE))));
        cases.add(refused("compact2", "null request", () -> raw.compact2(null)));
        cases.add(refused("compact", "null request", () -> {
            raw.compact(null);
            return null;
        }));
        long open = raw.open_txns(new OpenTxnRequest(1, "alice", "host"))
                .getTxn_ids()
                .get(0);
        for (String name : BAD_NAMES) {
            if (name != null) { // tableName is required: Thrift's client refuses to send it unset
                AllocateTableWriteIdsRequest allocate = new AllocateTableWriteIdsRequest("sales", name);
                allocate.setTxnIds(List.of(open));
                cases.add(refused(
                        "allocate_table_write_ids",
                        "table " + shown(name),
                        () -> raw.allocate_table_write_ids(allocate),
                        MetaException.class));
                cases.add(refused(
                        "get_valid_write_ids",
                        "name " + shown(name),
                        () -> raw.get_valid_write_ids(new GetValidWriteIdsRequest(List.of(name))),
                        MetaException.class));
            }
        }
        GetValidWriteIdsRequest unknownWriteId = new GetValidWriteIdsRequest(List.of("sales.plain"));
        unknownWriteId.setWriteId(7);
        cases.add(refused(
                "get_valid_write_ids",
                "unknown write id",
                () -> raw.get_valid_write_ids(unknownWriteId),
                MetaException.class));
        GetValidWriteIdsRequest badSnapshot = new GetValidWriteIdsRequest(List.of("sales.plain"));
        badSnapshot.setValidTxnList("x:y");
        cases.add(refused(
                "get_valid_write_ids",
                "malformed snapshot",
                () -> raw.get_valid_write_ids(badSnapshot),
                MetaException.class));
        cases.add(refused("get_valid_write_ids", "null request", () -> raw.get_valid_write_ids(null)));
        sweep(cases);
        // abort_txns skips the ids it cannot abort, as Hive does (it logs them): no error, nothing written.
        long before = hms.catalog().lastVid();
        raw.abort_txns(new AbortTxnsRequest(List.of(unknown, -1L, committed, aborted)));
        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        // Still open, its table still without a write id.
        assertThat(raw.get_open_txns().getOpen_txns()).contains(open);
        AllocateTableWriteIdsRequest first = new AllocateTableWriteIdsRequest("sales", "plain");
        first.setTxnIds(List.of(open));
        assertThat(raw.allocate_table_write_ids(first).getTxnToWriteIds().get(0).getWriteId())
                .isEqualTo(1);
    }
}
