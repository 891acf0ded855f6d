package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.AbortTxnRequest;
import org.apache.hadoop.hive.metastore.api.AbortTxnsRequest;
import org.apache.hadoop.hive.metastore.api.AddDynamicPartitions;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.AlterTableRequest;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.ClientCapabilities;
import org.apache.hadoop.hive.metastore.api.ClientCapability;
import org.apache.hadoop.hive.metastore.api.CommitTxnRequest;
import org.apache.hadoop.hive.metastore.api.CompactionRequest;
import org.apache.hadoop.hive.metastore.api.CompactionResponse;
import org.apache.hadoop.hive.metastore.api.CompactionType;
import org.apache.hadoop.hive.metastore.api.CreateTableRequest;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.GetLatestCommittedCompactionInfoRequest;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsRequest;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatTxnRangeRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MaxAllocatedTableWriteIdRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.OpenTxnRequest;
import org.apache.hadoop.hive.metastore.api.ShowCompactRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.TxnToWriteId;
import org.apache.hadoop.hive.metastore.api.TxnType;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hive ACID calls, as Hive's and Trino's clients send them around a transactional insert and read, against Hive
 * 4.0.1 and TreeCat from the same fresh state: one sequence of calls, each answer compared. Both stores start empty,
 * so the same calls draw the same transaction and write ids, which are compared exactly; what each server has of its
 * own (times, host names) is left out ({@link AcidTables}). Every comparison is named {@code "<thrift call>: <case>"}.
 *
 * <p>A {@code TApplicationException} is compared by its type, so an unknown call never passes for an internal error.
 * Where Hive fails with an exception the call does not declare (the client sees an internal error), TreeCat answers
 * the {@code MetaException} the call declares, with a message: such calls are compared as refusals
 * ({@link #compareRefusal}). Two decided divergences are listed in {@link KnownHiveDivergences} and checked at the end
 * ({@link #divergences}). A pair of peers of its own ({@link FreshPeers}): the ids compared are those a fresh store
 * draws.
 */
@ExtendWith(SharedHmsPeers.class)
@FreshPeers
@ComparesCalls({
    "abort_txn",
    "abort_txns",
    "add_dynamic_partitions",
    "allocate_table_write_ids",
    "alter_table_req",
    "check_lock",
    "commit_txn",
    "compact",
    "compact2",
    "get_latest_committed_compaction_info",
    "get_max_allocated_table_write_id",
    "get_open_txns",
    "get_open_txns_info",
    "get_open_txns_req",
    "get_table_req",
    "get_valid_write_ids",
    "heartbeat",
    "heartbeat_txn_range",
    "lock",
    "open_txns",
    "show_compact",
    "show_locks",
    "unlock"
})
class TransactionsDifferentialIT {
    private static final String USER = "alice";
    private static final String HOST = "client-host";
    /** What Hive 4's table calls want of a client reading or writing an ACID table. */
    private static final List<String> CAPABILITIES = List.of(
            "HIVEFULLACIDWRITE",
            "HIVEFULLACIDREAD",
            "HIVEMANAGEDINSERTWRITE",
            "HIVEMANAGEDINSERTREAD",
            "HIVECACHEINVALIDATE",
            "CONNECTORWRITE",
            "HIVEMANAGESTATS");

    private static HmsPeers peers;

    private Differential d;
    private final List<String> divergences = new ArrayList<>();

    /** A pair of its own ({@link FreshPeers}); the tables every comparison uses, made alike on both. */
    @BeforeAll
    static void startPeers(HmsPeers fresh) {
        peers = fresh;
        Differential differential = peers.differential();
        differential.setUp("create_database " + AcidTables.DATABASE, (client, peer) -> {
            client.create_database(AcidTables.database());
            return null;
        });
        for (Table table :
                List.of(AcidTables.table(AcidTables.TABLE, false), AcidTables.table(AcidTables.PARTITIONED, true))) {
            differential.setUp("create_table " + table.getTableName(), (client, peer) -> {
                // Hive 4 creates an ACID table only for a client that says it can write one.
                CreateTableRequest request = new CreateTableRequest(table);
                request.setProcessorCapabilities(CAPABILITIES);
                request.setProcessorIdentifier("treecat-conformance");
                client.create_table_req(request);
                return null;
            });
        }
        differential.takeMismatches();
    }

    /** A call whose answer is compared; {@code void} calls answer {@code "ok"}. */
    @FunctionalInterface
    private interface Call {
        Object call(ThriftHiveMetastore.Client client, MetastorePeer peer) throws TException;
    }

    private static String application(TApplicationException e) {
        return "TApplicationException type " + e.getType();
    }

    /** Both sides' answers compared, a {@code TApplicationException} by its type. */
    private Differential.Comparison compare(String description, Call call) {
        return d.compare(
                description,
                (client, peer) -> {
                    try {
                        return call.call(client, peer);
                    } catch (TApplicationException e) {
                        return application(e);
                    }
                },
                Function.identity());
    }

    /**
     * A call both sides must refuse, or answer alike: Hive's internal error (an undeclared exception) and TreeCat's
     * declared {@code MetaException} are the same refusal; other exceptions are compared by type.
     */
    private void compareRefusal(String description, Call call) {
        d.compare(
                description,
                (client, peer) -> {
                    try {
                        return call.call(client, peer);
                    } catch (TApplicationException e) {
                        return e.getType() == TApplicationException.INTERNAL_ERROR ? "refused" : application(e);
                    } catch (MetaException e) {
                        return "refused";
                    }
                },
                Function.identity());
    }

    private static OpenTxnRequest open(int count) {
        OpenTxnRequest request = new OpenTxnRequest(count, USER, HOST);
        request.setAgentInfo("differential");
        return request;
    }

    private static LockRequest txnLock(long txnId) {
        LockComponent component = new LockComponent(LockType.SHARED_READ, LockLevel.TABLE, AcidTables.DATABASE);
        component.setTablename(AcidTables.TABLE);
        component.setOperationType(DataOperationType.INSERT);
        component.setIsTransactional(true);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), USER, HOST);
        request.setTxnid(txnId);
        request.setAgentInfo("differential-lock");
        return request;
    }

    private static AllocateTableWriteIdsRequest allocate(String table, Long... txnIds) {
        AllocateTableWriteIdsRequest request = new AllocateTableWriteIdsRequest(AcidTables.DATABASE, table);
        request.setTxnIds(new ArrayList<>(List.of(txnIds)));
        return request;
    }

    private static String writeIds(List<TxnToWriteId> ids) {
        return ids.stream()
                .map(id -> id.getTxnId() + "->" + id.getWriteId())
                .toList()
                .toString();
    }

    private static String tableName(String table) {
        return AcidTables.DATABASE + "." + table;
    }

    private static GetValidWriteIdsRequest validWriteIdsRequest(List<String> tables) {
        return new GetValidWriteIdsRequest(tables);
    }

    private static GetValidWriteIdsRequest validWriteIdsRequest(List<String> tables, String validTxnList) {
        GetValidWriteIdsRequest request = new GetValidWriteIdsRequest(tables);
        request.setValidTxnList(validTxnList);
        return request;
    }

    private static GetOpenTxnsRequest openTxnsRequest(TxnType... excluded) {
        GetOpenTxnsRequest request = new GetOpenTxnsRequest();
        request.setExcludeTxnTypes(List.of(excluded));
        return request;
    }

    private static String compactionResponse(CompactionResponse response) {
        return "id=" + response.getId() + " state=" + response.getState() + " accepted=" + response.isAccepted()
                + " error=" + response.getErrormessage();
    }

    private static CompactionRequest compaction(String table, String partition, CompactionType type) {
        CompactionRequest request = new CompactionRequest(AcidTables.DATABASE, table, type);
        if (partition != null) {
            request.setPartitionname(partition);
        }
        request.setRunas(USER);
        return request;
    }

    private static HeartbeatRequest heartbeat(long lockId, long txnId) {
        HeartbeatRequest request = new HeartbeatRequest();
        request.setLockid(lockId);
        request.setTxnid(txnId);
        return request;
    }

    private static AddDynamicPartitions dynamicPartitions(long txnId, long writeId) {
        AddDynamicPartitions request = new AddDynamicPartitions(
                txnId, writeId, AcidTables.DATABASE, AcidTables.PARTITIONED, List.of("ds=2024-01-01"));
        request.setOperationType(DataOperationType.INSERT);
        return request;
    }

    /** The first lock {@code show_locks} lists on one side: each side has its own lock ids. */
    private static long firstLockId(Differential.Outcome locks) {
        return locks.value() instanceof ShowLocksResponse response && response.getLocksSize() > 0
                ? response.getLocks().get(0).getLockid()
                : -1;
    }

    /** A value each side has its own of (a lock id, the first id of a batch): Hive's first, TreeCat's second. */
    private record PerSide(long hive, long treeCat) {
        long of(MetastorePeer peer) {
            return peer instanceof HivePeer ? hive : treeCat;
        }
    }

    private PerSide lockIds() {
        Differential.Call<ShowLocksResponse> show = (client, peer) -> client.show_locks(new ShowLocksRequest());
        return new PerSide(
                firstLockId(d.reference(show, Function.identity())),
                firstLockId(d.candidate(show, Function.identity())));
    }

    /** One ordered sequence: each call's answer depends on the ones before it, on both sides alike. */
    @Test
    void transactionLifecycle() {
        d = peers.differential();
        d.takeMismatches();
        openCommitAndAbort();
        heartbeats();
        writeIdsAndSnapshots();
        aTransactionalInsert();
        compactionRequests();
        PerSide batch = manyAtOnce();
        divergences(batch);
        d.assertAgreed("TransactionsDifferentialIT");
        assertThat(divergences)
                .withFailMessage("%s", String.join("\n", divergences))
                .isEmpty();
    }

    /** Transactions 1 and 2: commit, abort, and each again; unknown ids; bad counts. */
    private void openCommitAndAbort() {
        compare("open_txns: two", (client, peer) -> client.open_txns(open(2)).getTxn_ids());
        compare("get_open_txns: two open", (client, peer) -> AcidTables.openTxns(client.get_open_txns()));
        compare("get_open_txns_info: two open", (client, peer) -> AcidTables.openTxnsInfo(client.get_open_txns_info()));
        compare("commit_txn: open", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(1));
            return "ok";
        });
        compare("commit_txn: committed again", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(1));
            return "ok";
        });
        compare("abort_txn: committed", (client, peer) -> {
            client.abort_txn(new AbortTxnRequest(1));
            return "ok";
        });
        compare("abort_txn: open", (client, peer) -> {
            client.abort_txn(new AbortTxnRequest(2));
            return "ok";
        });
        compare("abort_txn: aborted again", (client, peer) -> {
            client.abort_txn(new AbortTxnRequest(2));
            return "ok";
        });
        compare("commit_txn: aborted", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(2));
            return "ok";
        });
        compare("commit_txn: unknown", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(999));
            return "ok";
        });
        compare("abort_txn: unknown", (client, peer) -> {
            client.abort_txn(new AbortTxnRequest(999));
            return "ok";
        });
        compareRefusal(
                "open_txns: zero", (client, peer) -> client.open_txns(open(0)).getTxn_ids());
        compareRefusal(
                "open_txns: negative",
                (client, peer) -> client.open_txns(open(-1)).getTxn_ids());
        compare("get_open_txns: after commit and abort", (client, peer) -> AcidTables.openTxns(client.get_open_txns()));
        compare(
                "get_open_txns_info: after commit and abort",
                (client, peer) -> AcidTables.openTxnsInfo(client.get_open_txns_info()));
    }

    /** Transaction 3 open: heartbeats of each state, and of ranges. */
    private void heartbeats() {
        compare("open_txns: one", (client, peer) -> client.open_txns(open(1)).getTxn_ids());
        long[] txns = {3, 2, 1, 999};
        String[] states = {"open", "aborted", "committed", "unknown"};
        for (int i = 0; i < txns.length; i++) {
            long txn = txns[i];
            compare("heartbeat: " + states[i] + " txn", (client, peer) -> {
                client.heartbeat(heartbeat(0, txn));
                return "ok";
            });
        }
        compare(
                "heartbeat_txn_range: committed, aborted, open and unknown",
                (client, peer) ->
                        AcidTables.heartbeatRange(client.heartbeat_txn_range(new HeartbeatTxnRangeRequest(1, 5))));
        compare(
                "heartbeat_txn_range: one open",
                (client, peer) ->
                        AcidTables.heartbeatRange(client.heartbeat_txn_range(new HeartbeatTxnRangeRequest(3, 3))));
        compareRefusal(
                "heartbeat_txn_range: reversed",
                (client, peer) ->
                        AcidTables.heartbeatRange(client.heartbeat_txn_range(new HeartbeatTxnRangeRequest(5, 1))));
        compare(
                "get_open_txns_info: after heartbeats",
                (client, peer) -> AcidTables.openTxnsInfo(client.get_open_txns_info()));
    }

    /** Write ids of 3, then of 4 and 5 at once; snapshots before and after 3 commits and 4 aborts. */
    private void writeIdsAndSnapshots() {
        compare(
                "allocate_table_write_ids: first",
                (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.TABLE, 3L))
                        .getTxnToWriteIds()));
        compare(
                "allocate_table_write_ids: again in the same txn",
                (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.TABLE, 3L))
                        .getTxnToWriteIds()));
        compare(
                "allocate_table_write_ids: table name in upper case",
                (client, peer) -> writeIds(
                        client.allocate_table_write_ids(allocate("T", 3L)).getTxnToWriteIds()));
        long[] txns = {2, 1, 999};
        String[] states = {"aborted", "committed", "unknown"};
        for (int i = 0; i < txns.length; i++) {
            long txn = txns[i];
            compareRefusal(
                    "allocate_table_write_ids: " + states[i] + " txn",
                    (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.TABLE, txn))
                            .getTxnToWriteIds()));
        }
        compare(
                "open_txns: two more",
                (client, peer) -> client.open_txns(open(2)).getTxn_ids());
        compare(
                "allocate_table_write_ids: two txns at once, out of order",
                (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.TABLE, 5L, 4L))
                        .getTxnToWriteIds()));
        compare(
                "allocate_table_write_ids: partitioned table",
                (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.PARTITIONED, 4L))
                        .getTxnToWriteIds()));

        GetOpenTxnsResponse before =
                (GetOpenTxnsResponse) d.reference((client, peer) -> client.get_open_txns(), Function.identity())
                        .value();
        String snapshot = AcidTables.validTxnList(before);
        List<String> both = List.of(tableName(AcidTables.TABLE), tableName(AcidTables.PARTITIONED));
        compare(
                "get_valid_write_ids: snapshot with three open txns " + snapshot,
                (client, peer) ->
                        AcidTables.validWriteIds(client.get_valid_write_ids(validWriteIdsRequest(both, snapshot))));
        compare(
                "get_valid_write_ids: the same snapshot with ranges 5:3:3-5:2",
                (client, peer) ->
                        AcidTables.validWriteIds(client.get_valid_write_ids(validWriteIdsRequest(both, "5:3:3-5:2"))));
        compare(
                "get_valid_write_ids: without a txn list",
                (client, peer) -> AcidTables.validWriteIds(
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE))))));
        compare(
                "get_valid_write_ids: a table without write ids",
                (client, peer) -> AcidTables.validWriteIds(client.get_valid_write_ids(
                        validWriteIdsRequest(List.of(tableName("nothing_written")), snapshot))));
        compareRefusal(
                "get_valid_write_ids: a malformed txn list",
                (client, peer) -> AcidTables.validWriteIds(
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)), "x:y"))));
        compareRefusal(
                "get_valid_write_ids: a table name without its database",
                (client, peer) -> AcidTables.validWriteIds(
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(AcidTables.TABLE), snapshot))));
        compare(
                "get_valid_write_ids: an empty txn list",
                (client, peer) -> AcidTables.validWriteIds(
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)), ""))));
        compare("get_valid_write_ids: by write id", (client, peer) -> {
            GetValidWriteIdsRequest request = validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)));
            request.setWriteId(2);
            return AcidTables.validWriteIds(client.get_valid_write_ids(request));
        });
        compareRefusal("get_valid_write_ids: by an unknown write id", (client, peer) -> {
            GetValidWriteIdsRequest request = validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)));
            request.setWriteId(99);
            return AcidTables.validWriteIds(client.get_valid_write_ids(request));
        });
        compare("commit_txn: with a write id", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(3));
            return "ok";
        });
        compare("abort_txn: with a write id", (client, peer) -> {
            client.abort_txn(new AbortTxnRequest(4));
            return "ok";
        });
        compare(
                "get_open_txns: an aborted txn with write ids stays",
                (client, peer) -> AcidTables.openTxns(client.get_open_txns()));
        compare(
                "get_valid_write_ids: the old snapshot",
                (client, peer) -> AcidTables.validWriteIds(client.get_valid_write_ids(
                        validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)), snapshot))));
        compare(
                "get_valid_write_ids: now",
                (client, peer) -> AcidTables.validWriteIds(client.get_valid_write_ids(validWriteIdsRequest(both))));
        compare(
                "get_open_txns_req: excluding read-only",
                (client, peer) -> AcidTables.openTxns(client.get_open_txns_req(openTxnsRequest(TxnType.READ_ONLY))));
    }

    /** Transaction 6, as Trino's insert runs it; 7 read-only. */
    private void aTransactionalInsert() {
        compare(
                "open_txns: for an insert",
                (client, peer) -> client.open_txns(open(1)).getTxn_ids());
        compare(
                "lock: shared read in an open txn",
                (client, peer) -> client.lock(txnLock(6)).getState());
        compare(
                "show_locks: the txn's lock",
                (client, peer) -> AcidTables.locks(client.show_locks(new ShowLocksRequest())));
        PerSide lock = lockIds();
        compare("check_lock: the txn's lock", (client, peer) -> {
            CheckLockRequest request = new CheckLockRequest(lock.of(peer));
            request.setTxnid(6);
            return client.check_lock(request).getState();
        });
        compare("unlock: a lock of an open txn", (client, peer) -> {
            client.unlock(new UnlockRequest(lock.of(peer)));
            return "ok";
        });
        compare("heartbeat: a txn's lock by its lock id alone", (client, peer) -> {
            client.heartbeat(heartbeat(lock.of(peer), 0));
            return "ok";
        });
        compare("heartbeat: a txn's lock and its txn", (client, peer) -> {
            client.heartbeat(heartbeat(lock.of(peer), 6));
            return "ok";
        });
        compare(
                "lock: in an aborted txn",
                (client, peer) -> client.lock(txnLock(4)).getState());
        compare(
                "lock: in an unknown txn",
                (client, peer) -> client.lock(txnLock(999)).getState());
        compare(
                "allocate_table_write_ids: for the insert",
                (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.TABLE, 6L))
                        .getTxnToWriteIds()));
        compare("alter_table_req: with the insert's write id", (client, peer) -> {
            GetTableRequest get = new GetTableRequest(AcidTables.DATABASE, AcidTables.TABLE);
            get.setProcessorCapabilities(CAPABILITIES);
            get.setCapabilities(new ClientCapabilities(List.of(ClientCapability.INSERT_ONLY_TABLES)));
            Table table = client.get_table_req(get).getTable();
            table.getParameters().put("numRows", "2");
            table.setWriteId(4);
            AlterTableRequest request = new AlterTableRequest(AcidTables.DATABASE, AcidTables.TABLE, table);
            request.setWriteId(4);
            request.setValidWriteIdList(tableName(AcidTables.TABLE) + ":4:3:3:2");
            request.setProcessorCapabilities(CAPABILITIES);
            client.alter_table_req(request);
            return "ok";
        });
        compare("get_table_req: the write id an alter set", (client, peer) -> {
            GetTableRequest get = new GetTableRequest(AcidTables.DATABASE, AcidTables.TABLE);
            get.setProcessorCapabilities(CAPABILITIES);
            get.setCapabilities(new ClientCapabilities(List.of(ClientCapability.INSERT_ONLY_TABLES)));
            Table table = client.get_table_req(get).getTable();
            return table.getWriteId() + " numRows=" + table.getParameters().get("numRows");
        });
        compare("add_dynamic_partitions: in the insert's txn", (client, peer) -> {
            client.add_dynamic_partitions(dynamicPartitions(6, 4));
            return "ok";
        });
        compareRefusal("add_dynamic_partitions: without an operation type", (client, peer) -> {
            AddDynamicPartitions request = dynamicPartitions(6, 4);
            request.unsetOperationType();
            client.add_dynamic_partitions(request);
            return "ok";
        });
        compare("add_dynamic_partitions: in an aborted txn", (client, peer) -> {
            client.add_dynamic_partitions(dynamicPartitions(4, 2));
            return "ok";
        });
        compare("add_dynamic_partitions: in an unknown txn", (client, peer) -> {
            client.add_dynamic_partitions(dynamicPartitions(999, 2));
            return "ok";
        });
        compare("commit_txn: releases the txn's locks", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(6));
            return "ok";
        });
        compare(
                "show_locks: none after the commit",
                (client, peer) -> AcidTables.locks(client.show_locks(new ShowLocksRequest())));
        compare(
                "get_max_allocated_table_write_id: after the insert",
                (client, peer) -> client.get_max_allocated_table_write_id(
                                new MaxAllocatedTableWriteIdRequest(AcidTables.DATABASE, AcidTables.TABLE))
                        .getMaxWriteId());
        compare(
                "get_max_allocated_table_write_id: a table without write ids",
                (client, peer) -> client.get_max_allocated_table_write_id(
                                new MaxAllocatedTableWriteIdRequest(AcidTables.DATABASE, "never_written"))
                        .getMaxWriteId());
        compare(
                "get_valid_write_ids: after the insert",
                (client, peer) -> AcidTables.validWriteIds(
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE))))));

        compare("open_txns: read-only", (client, peer) -> {
            OpenTxnRequest request = open(1);
            request.setTxn_type(TxnType.READ_ONLY);
            return client.open_txns(request).getTxn_ids();
        });
        compare("get_open_txns: with a read-only txn", (client, peer) -> AcidTables.openTxns(client.get_open_txns()));
        compare(
                "get_open_txns_req: excluding nothing",
                (client, peer) -> AcidTables.openTxns(client.get_open_txns_req(openTxnsRequest())));
        compareRefusal(
                "allocate_table_write_ids: read-only txn",
                (client, peer) -> writeIds(client.allocate_table_write_ids(allocate(AcidTables.TABLE, 7L))
                        .getTxnToWriteIds()));
        compare("commit_txn: read-only", (client, peer) -> {
            client.commit_txn(new CommitTxnRequest(7));
            return "ok";
        });
    }

    /** Compaction requests: recorded and listed, never run. */
    private void compactionRequests() {
        compare(
                "compact2: a table",
                (client, peer) ->
                        compactionResponse(client.compact2(compaction(AcidTables.TABLE, null, CompactionType.MAJOR))));
        compare(
                "compact2: the same table again",
                (client, peer) ->
                        compactionResponse(client.compact2(compaction(AcidTables.TABLE, null, CompactionType.MINOR))));
        compare(
                "compact2: a partition",
                (client, peer) -> compactionResponse(
                        client.compact2(compaction(AcidTables.PARTITIONED, "ds=2024-01-01", CompactionType.MINOR))));
        compare("compact: a partition, the deprecated form", (client, peer) -> {
            client.compact(compaction(AcidTables.PARTITIONED, "ds=2024-01-02", CompactionType.MAJOR));
            return "ok";
        });
        compare(
                "compact2: a missing table",
                (client, peer) -> compactionResponse(client.compact2(compaction("nope", null, CompactionType.MAJOR))));
        compare("compact2: without run-as, in a pool", (client, peer) -> {
            CompactionRequest request = new CompactionRequest(AcidTables.DATABASE, "q", CompactionType.MAJOR);
            request.setPoolName("etl");
            return compactionResponse(client.compact2(request));
        });
        compare(
                "show_compact: everything",
                (client, peer) -> AcidTables.compactions(client.show_compact(new ShowCompactRequest())));
        compare("show_compact: one table", (client, peer) -> {
            ShowCompactRequest request = new ShowCompactRequest();
            request.setDbName(AcidTables.DATABASE);
            request.setTbName(AcidTables.PARTITIONED);
            return AcidTables.compactions(client.show_compact(request));
        });
        compare("show_compact: one partition", (client, peer) -> {
            ShowCompactRequest request = new ShowCompactRequest();
            request.setDbName(AcidTables.DATABASE);
            request.setTbName(AcidTables.PARTITIONED);
            request.setPartName("ds=2024-01-02");
            return AcidTables.compactions(client.show_compact(request));
        });
        compare(
                "get_latest_committed_compaction_info: none committed",
                (client, peer) -> client.get_latest_committed_compaction_info(
                                new GetLatestCommittedCompactionInfoRequest(AcidTables.DATABASE, AcidTables.TABLE))
                        .getCompactions()
                        .size());
    }

    /**
     * More than a batch opened at once, then aborted together with ids of other states. Only the count is compared:
     * Hive on Derby may take longer than its {@code metastore.txn.opentxn.timeout} (1 s) to open a thousand, and then
     * drops them and opens another thousand, so its ids depend on the machine.
     */
    private PerSide manyAtOnce() {
        Differential.Call<List<Long>> thousand =
                (client, peer) -> client.open_txns(open(5000)).getTxn_ids();
        Differential.Outcome hive = d.reference(thousand, Function.identity());
        Differential.Outcome treeCat = d.candidate(thousand, Function.identity());
        compare("open_txns: more than a batch", (client, peer) -> {
            Differential.Outcome opened = peer instanceof HivePeer ? hive : treeCat;
            if (opened.threw()) {
                return opened.describe();
            }
            List<?> ids = (List<?>) opened.value();
            long first = (Long) ids.get(0);
            return ids.size() + " consecutive: " + ((Long) ids.get(ids.size() - 1) - first == ids.size() - 1);
        });
        PerSide first = new PerSide(firstId(hive), firstId(treeCat));
        compare("abort_txns: open, aborted, committed and unknown", (client, peer) -> {
            long batch = first.of(peer);
            client.abort_txns(new AbortTxnsRequest(List.of(batch, batch + 1, 4L, 3L, 999_999L)));
            return "ok";
        });
        compare("abort_txns: open ones", (client, peer) -> {
            long batch = first.of(peer);
            client.abort_txns(new AbortTxnsRequest(List.of(batch + 2, batch + 3)));
            return "ok";
        });
        compare("get_open_txns: after aborting many", (client, peer) -> {
            GetOpenTxnsResponse open = client.get_open_txns();
            return open.getOpen_txns().size() + " listed, "
                    + BitSet.valueOf(open.bufferForAbortedBits()).cardinality() + " aborted";
        });
        return first;
    }

    private static long firstId(Differential.Outcome opened) {
        return opened.value() instanceof List<?> ids && !ids.isEmpty() ? (Long) ids.get(0) : -1;
    }

    /**
     * The decided divergences, each checked as decided: Hive's answer is what it was when the decision was made, and
     * TreeCat's is its own. Hive grants a lock in a committed transaction, which nothing then ever releases; TreeCat
     * refuses it with the message Hive gives for a committed transaction. Hive hands write ids out for a table that
     * does not exist; TreeCat keeps a table's write ids below the table, and refuses.
     */
    private void divergences(PerSide batch) {
        expectTreeCat(
                compare(
                        "lock: in a committed txn",
                        (client, peer) -> client.lock(txnLock(3)).getState()),
                NoSuchTxnException.class);
        expectTreeCat(
                compare(
                        "allocate_table_write_ids: missing table",
                        (client, peer) -> writeIds(client.allocate_table_write_ids(allocate("nope", batch.of(peer) + 4))
                                .getTxnToWriteIds())),
                MetaException.class);
    }

    /** A decided divergence answers as decided on TreeCat's side (that it differs, {@link KnownHiveDivergences} checks). */
    private void expectTreeCat(Differential.Comparison comparison, Class<? extends TException> treeCat) {
        if (!treeCat.getName().equals(comparison.candidate().exception())) {
            divergences.add(
                    "TreeCat answers " + comparison.candidate().describe() + ", not a " + treeCat.getSimpleName());
        }
    }
}
