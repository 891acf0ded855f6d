package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.AbortTxnRequest;
import org.apache.hadoop.hive.metastore.api.AbortTxnsRequest;
import org.apache.hadoop.hive.metastore.api.AddDynamicPartitions;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.AlterTableRequest;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
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
import org.apache.hadoop.hive.metastore.api.OpenTxnRequest;
import org.apache.hadoop.hive.metastore.api.ShowCompactRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TxnToWriteId;
import org.apache.hadoop.hive.metastore.api.TxnType;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hive ACID calls, as Hive's and Trino's clients send them around a transactional insert and read, against Hive
 * 4.0.1 and TreeCat from the same fresh state: one sequence of calls, each answer compared. Both stores start empty,
 * so the same calls draw the same transaction and write ids, which are compared exactly; what each server has of its
 * own (times, host names) is left out ({@link AcidTables}). Every comparison is named {@code "<thrift call>: <case>"}.
 */
class TransactionsDifferentialIT {
    private static final String USER = "alice";
    private static final String HOST = "client-host";

    private static HmsPeers peers;

    @BeforeAll
    static void startPeers() throws IOException, InterruptedException {
        Path run =
                Files.createDirectories(Path.of("target", "hms-differential")).toAbsolutePath();
        peers = HmsPeers.start(Files.createTempDirectory(run, "run-"));
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
                request.setProcessorCapabilities(List.of(
                        "HIVEFULLACIDWRITE",
                        "HIVEFULLACIDREAD",
                        "HIVEMANAGEDINSERTWRITE",
                        "HIVEMANAGEDINSERTREAD",
                        "HIVECACHEINVALIDATE",
                        "CONNECTORWRITE",
                        "HIVEMANAGESTATS"));
                request.setProcessorIdentifier("treecat-conformance");
                client.create_table_req(request);
                return null;
            });
        }
        differential.takeMismatches();
    }

    @AfterAll
    static void stopPeers() throws InterruptedException {
        if (peers != null) {
            peers.close();
        }
    }

    private static OpenTxnRequest open(int count) {
        OpenTxnRequest request = new OpenTxnRequest(count, USER, HOST);
        request.setAgentInfo("differential");
        return request;
    }

    private static LockRequest txnLock(long txnId, LockType type, DataOperationType operation) {
        LockComponent component = new LockComponent(type, LockLevel.TABLE, AcidTables.DATABASE);
        component.setTablename(AcidTables.TABLE);
        component.setOperationType(operation);
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

    private static GetValidWriteIdsRequest validWriteIdsRequest(List<String> tables) {
        return new GetValidWriteIdsRequest(tables);
    }

    private static GetValidWriteIdsRequest validWriteIdsRequest(List<String> tables, String validTxnList) {
        GetValidWriteIdsRequest request = new GetValidWriteIdsRequest(tables);
        request.setValidTxnList(validTxnList);
        return request;
    }

    private static GetOpenTxnsRequest openTxnsRequest(TxnType excluded) {
        GetOpenTxnsRequest request = new GetOpenTxnsRequest();
        request.setExcludeTxnTypes(List.of(excluded));
        return request;
    }

    private static long firstLockId(Differential.Outcome locks) {
        return locks.value() instanceof ShowLocksResponse response && response.getLocksSize() > 0
                ? response.getLocks().get(0).getLockid()
                : -1;
    }

    /** One ordered sequence: each call's answer depends on the ones before it, on both sides alike. */
    @Test
    void transactionLifecycle() throws IOException {
        Differential d = peers.differential();
        d.takeMismatches();

        // Opening, committing and aborting (txn ids 1, 2).
        d.compare("open_txns: two", (client, peer) -> client.open_txns(open(2)).getTxn_ids(), Function.identity());
        d.compare("get_open_txns: two open", (client, peer) -> client.get_open_txns(), AcidTables::openTxns);
        d.compare(
                "get_open_txns_info: two open",
                (client, peer) -> client.get_open_txns_info(),
                AcidTables::openTxnsInfo);
        d.compare(
                "commit_txn: open",
                (client, peer) -> {
                    client.commit_txn(new CommitTxnRequest(1));
                    return "committed";
                },
                Function.identity());
        d.compare(
                "commit_txn: committed again",
                (client, peer) -> {
                    client.commit_txn(new CommitTxnRequest(1));
                    return "committed";
                },
                Function.identity());
        d.compare(
                "abort_txn: committed",
                (client, peer) -> {
                    client.abort_txn(new AbortTxnRequest(1));
                    return "aborted";
                },
                Function.identity());
        d.compare(
                "abort_txn: open",
                (client, peer) -> {
                    client.abort_txn(new AbortTxnRequest(2));
                    return "aborted";
                },
                Function.identity());
        d.compare(
                "abort_txn: aborted again",
                (client, peer) -> {
                    client.abort_txn(new AbortTxnRequest(2));
                    return "aborted";
                },
                Function.identity());
        d.compare(
                "commit_txn: aborted",
                (client, peer) -> {
                    client.commit_txn(new CommitTxnRequest(2));
                    return "committed";
                },
                Function.identity());
        d.compare(
                "commit_txn: unknown",
                (client, peer) -> {
                    client.commit_txn(new CommitTxnRequest(999));
                    return "committed";
                },
                Function.identity());
        d.compare(
                "abort_txn: unknown",
                (client, peer) -> {
                    client.abort_txn(new AbortTxnRequest(999));
                    return "aborted";
                },
                Function.identity());
        d.compare("open_txns: zero", (client, peer) -> client.open_txns(open(0)).getTxn_ids(), Function.identity());
        d.compare(
                "open_txns: negative",
                (client, peer) -> client.open_txns(open(-1)).getTxn_ids(),
                Function.identity());
        d.compare(
                "get_open_txns: after commit and abort",
                (client, peer) -> client.get_open_txns(),
                AcidTables::openTxns);
        d.compare(
                "get_open_txns_info: after commit and abort",
                (client, peer) -> client.get_open_txns_info(),
                AcidTables::openTxnsInfo);

        // Heartbeats (txn 3 open).
        d.compare("open_txns: one", (client, peer) -> client.open_txns(open(1)).getTxn_ids(), Function.identity());
        for (long txn : new long[] {3, 2, 1, 999}) {
            String state = txn == 3 ? "open" : txn == 2 ? "aborted" : txn == 1 ? "committed" : "unknown";
            d.compare(
                    "heartbeat: " + state + " txn",
                    (client, peer) -> {
                        HeartbeatRequest request = new HeartbeatRequest();
                        request.setTxnid(txn);
                        client.heartbeat(request);
                        return "ok";
                    },
                    Function.identity());
        }
        d.compare(
                "heartbeat_txn_range: committed, aborted, open and unknown",
                (client, peer) -> client.heartbeat_txn_range(new HeartbeatTxnRangeRequest(1, 5)),
                AcidTables::heartbeatRange);
        d.compare(
                "heartbeat_txn_range: reversed",
                (client, peer) -> client.heartbeat_txn_range(new HeartbeatTxnRangeRequest(5, 1)),
                AcidTables::heartbeatRange);
        d.compare(
                "get_open_txns_info: heartbeats counted",
                (client, peer) -> client.get_open_txns_info(),
                AcidTables::openTxnsInfo);

        // Write ids (txn 3 open; 4 and 5 opened together).
        d.compare(
                "allocate_table_write_ids: first",
                (client, peer) -> client.allocate_table_write_ids(allocate(AcidTables.TABLE, 3L))
                        .getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);
        d.compare(
                "allocate_table_write_ids: again in the same txn",
                (client, peer) -> client.allocate_table_write_ids(allocate(AcidTables.TABLE, 3L))
                        .getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);
        d.compare(
                "allocate_table_write_ids: table name in upper case",
                (client, peer) ->
                        client.allocate_table_write_ids(allocate("T", 3L)).getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);
        for (long txn : new long[] {2, 1, 999}) {
            String state = txn == 2 ? "aborted" : txn == 1 ? "committed" : "unknown";
            d.compare(
                    "allocate_table_write_ids: " + state + " txn",
                    (client, peer) -> client.allocate_table_write_ids(allocate(AcidTables.TABLE, txn))
                            .getTxnToWriteIds(),
                    TransactionsDifferentialIT::writeIds);
        }
        d.compare(
                "allocate_table_write_ids: missing table",
                (client, peer) ->
                        client.allocate_table_write_ids(allocate("nope", 3L)).getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);
        d.compare(
                "open_txns: two more",
                (client, peer) -> client.open_txns(open(2)).getTxn_ids(),
                Function.identity());
        d.compare(
                "allocate_table_write_ids: two txns at once, out of order",
                (client, peer) -> client.allocate_table_write_ids(allocate(AcidTables.TABLE, 5L, 4L))
                        .getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);
        d.compare(
                "allocate_table_write_ids: partitioned table",
                (client, peer) -> client.allocate_table_write_ids(allocate(AcidTables.PARTITIONED, 4L))
                        .getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);

        // Valid write ids: a snapshot now (3, 4, 5 open), then after 3 commits and 4 aborts.
        GetOpenTxnsResponse before =
                (GetOpenTxnsResponse) d.reference((client, peer) -> client.get_open_txns(), Function.identity())
                        .value();
        String snapshot = AcidTables.validTxnList(before);
        d.compare(
                "get_valid_write_ids: snapshot with three open txns " + snapshot,
                (client, peer) -> client.get_valid_write_ids(validWriteIdsRequest(
                        List.of(tableName(AcidTables.TABLE), tableName(AcidTables.PARTITIONED)), snapshot)),
                AcidTables::validWriteIds);
        d.compare(
                "get_valid_write_ids: without a txn list",
                (client, peer) ->
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)))),
                AcidTables::validWriteIds);
        d.compare(
                "get_valid_write_ids: a table without write ids",
                (client, peer) -> client.get_valid_write_ids(
                        validWriteIdsRequest(List.of(tableName("nothing_written")), snapshot)),
                AcidTables::validWriteIds);
        d.compare(
                "get_valid_write_ids: a malformed txn list",
                (client, peer) ->
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)), "x:y")),
                AcidTables::validWriteIds);
        d.compare(
                "get_valid_write_ids: an empty txn list",
                (client, peer) ->
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)), "")),
                AcidTables::validWriteIds);
        d.compare(
                "get_valid_write_ids: by write id",
                (client, peer) -> {
                    GetValidWriteIdsRequest request = validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)));
                    request.setWriteId(2);
                    return client.get_valid_write_ids(request);
                },
                AcidTables::validWriteIds);
        d.compare(
                "commit_txn: with a write id",
                (client, peer) -> {
                    client.commit_txn(new CommitTxnRequest(3));
                    return "committed";
                },
                Function.identity());
        d.compare(
                "abort_txn: with a write id",
                (client, peer) -> {
                    client.abort_txn(new AbortTxnRequest(4));
                    return "aborted";
                },
                Function.identity());
        d.compare(
                "get_open_txns: an aborted txn with write ids stays",
                (client, peer) -> client.get_open_txns(),
                AcidTables::openTxns);
        d.compare(
                "get_valid_write_ids: the old snapshot",
                (client, peer) -> client.get_valid_write_ids(
                        validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)), snapshot)),
                AcidTables::validWriteIds);
        d.compare(
                "get_valid_write_ids: now",
                (client, peer) -> client.get_valid_write_ids(
                        validWriteIdsRequest(List.of(tableName(AcidTables.TABLE), tableName(AcidTables.PARTITIONED)))),
                AcidTables::validWriteIds);
        d.compare(
                "get_open_txns_req: excluding read-only",
                (client, peer) -> client.get_open_txns_req(openTxnsRequest(TxnType.READ_ONLY)),
                AcidTables::openTxns);

        // The write a Trino insert makes: lock in the txn, write id, table altered with it, commit (txn 6).
        d.compare(
                "open_txns: for an insert",
                (client, peer) -> client.open_txns(open(1)).getTxn_ids(),
                Function.identity());
        d.compare(
                "lock: shared read in an open txn",
                (client, peer) -> client.lock(txnLock(6, LockType.SHARED_READ, DataOperationType.INSERT))
                        .getState(),
                Function.identity());
        d.compare(
                "show_locks: the txn's lock",
                (client, peer) -> client.show_locks(new ShowLocksRequest()),
                AcidTables::locks);
        long lockId = firstLockId(
                d.reference((client, peer) -> client.show_locks(new ShowLocksRequest()), Function.identity()));
        long treeCatLockId = firstLockId(
                d.candidate((client, peer) -> client.show_locks(new ShowLocksRequest()), Function.identity()));
        d.compare(
                "check_lock: the txn's lock",
                (client, peer) -> {
                    CheckLockRequest request = new CheckLockRequest(peer instanceof HivePeer ? lockId : treeCatLockId);
                    request.setTxnid(6);
                    return client.check_lock(request).getState();
                },
                Function.identity());
        d.compare(
                "unlock: a lock of an open txn",
                (client, peer) -> {
                    client.unlock(new UnlockRequest(peer instanceof HivePeer ? lockId : treeCatLockId));
                    return "unlocked";
                },
                Function.identity());
        d.compare(
                "heartbeat: a txn's lock by its lock id alone",
                (client, peer) -> {
                    HeartbeatRequest request = new HeartbeatRequest();
                    request.setLockid(peer instanceof HivePeer ? lockId : treeCatLockId);
                    client.heartbeat(request);
                    return "ok";
                },
                Function.identity());
        d.compare(
                "lock: in an aborted txn",
                (client, peer) -> client.lock(txnLock(4, LockType.SHARED_READ, DataOperationType.INSERT))
                        .getState(),
                Function.identity());
        d.compare(
                "lock: in a committed txn",
                (client, peer) -> client.lock(txnLock(3, LockType.SHARED_READ, DataOperationType.INSERT))
                        .getState(),
                Function.identity());
        d.compare(
                "lock: in an unknown txn",
                (client, peer) -> client.lock(txnLock(999, LockType.SHARED_READ, DataOperationType.INSERT))
                        .getState(),
                Function.identity());
        d.compare(
                "allocate_table_write_ids: for the insert",
                (client, peer) -> client.allocate_table_write_ids(allocate(AcidTables.TABLE, 6L))
                        .getTxnToWriteIds(),
                TransactionsDifferentialIT::writeIds);
        d.compare(
                "alter_table_req: with the insert's write id",
                (client, peer) -> {
                    Table table = client.get_table_req(new GetTableRequest(AcidTables.DATABASE, AcidTables.TABLE))
                            .getTable();
                    table.getParameters().put("numRows", "2");
                    table.setWriteId(4);
                    AlterTableRequest request = new AlterTableRequest(AcidTables.DATABASE, AcidTables.TABLE, table);
                    request.setWriteId(4);
                    request.setValidWriteIdList(tableName(AcidTables.TABLE) + ":4:4::2");
                    client.alter_table_req(request);
                    return "altered";
                },
                Function.identity());
        d.compare(
                "get_table_req: the write id an alter set",
                (client, peer) -> client.get_table_req(new GetTableRequest(AcidTables.DATABASE, AcidTables.TABLE))
                        .getTable()
                        .getWriteId(),
                Function.identity());
        d.compare(
                "add_dynamic_partitions: in the insert's txn",
                (client, peer) -> {
                    client.add_dynamic_partitions(new AddDynamicPartitions(
                            6, 2, AcidTables.DATABASE, AcidTables.PARTITIONED, List.of("ds=2024-01-01")));
                    return "added";
                },
                Function.identity());
        d.compare(
                "add_dynamic_partitions: in an aborted txn",
                (client, peer) -> {
                    client.add_dynamic_partitions(new AddDynamicPartitions(
                            4, 2, AcidTables.DATABASE, AcidTables.PARTITIONED, List.of("ds=2024-01-01")));
                    return "added";
                },
                Function.identity());
        d.compare(
                "add_dynamic_partitions: in an unknown txn",
                (client, peer) -> {
                    client.add_dynamic_partitions(new AddDynamicPartitions(
                            999, 2, AcidTables.DATABASE, AcidTables.PARTITIONED, List.of("ds=2024-01-01")));
                    return "added";
                },
                Function.identity());
        d.compare(
                "commit_txn: releases the txn's locks",
                (client, peer) -> {
                    client.commit_txn(new CommitTxnRequest(6));
                    return "committed";
                },
                Function.identity());
        d.compare(
                "show_locks: none after the commit",
                (client, peer) -> client.show_locks(new ShowLocksRequest()),
                AcidTables::locks);
        d.compare(
                "get_valid_write_ids: after the insert",
                (client, peer) ->
                        client.get_valid_write_ids(validWriteIdsRequest(List.of(tableName(AcidTables.TABLE)))),
                AcidTables::validWriteIds);

        // Compaction requests: recorded and listed, never run.
        d.compare(
                "compact2: a table",
                (client, peer) -> client.compact2(compaction(AcidTables.TABLE, null, CompactionType.MAJOR)),
                TransactionsDifferentialIT::compactionResponse);
        d.compare(
                "compact2: the same table again",
                (client, peer) -> client.compact2(compaction(AcidTables.TABLE, null, CompactionType.MINOR)),
                TransactionsDifferentialIT::compactionResponse);
        d.compare(
                "compact2: a partition",
                (client, peer) ->
                        client.compact2(compaction(AcidTables.PARTITIONED, "ds=2024-01-01", CompactionType.MINOR)),
                TransactionsDifferentialIT::compactionResponse);
        d.compare(
                "compact: a partition, the deprecated form",
                (client, peer) -> {
                    client.compact(compaction(AcidTables.PARTITIONED, "ds=2024-01-02", CompactionType.MAJOR));
                    return "requested";
                },
                Function.identity());
        d.compare(
                "compact2: a missing table",
                (client, peer) -> client.compact2(compaction("nope", null, CompactionType.MAJOR)),
                TransactionsDifferentialIT::compactionResponse);
        d.compare(
                "compact2: a partition of an unpartitioned table",
                (client, peer) -> client.compact2(compaction(AcidTables.TABLE, "ds=1", CompactionType.MAJOR)),
                TransactionsDifferentialIT::compactionResponse);
        d.compare(
                "show_compact: everything",
                (client, peer) -> client.show_compact(new ShowCompactRequest()),
                AcidTables::compactions);
        d.compare(
                "show_compact: one table",
                (client, peer) -> {
                    ShowCompactRequest request = new ShowCompactRequest();
                    request.setDbName(AcidTables.DATABASE);
                    request.setTbName(AcidTables.PARTITIONED);
                    return client.show_compact(request);
                },
                AcidTables::compactions);
        d.compare(
                "get_latest_committed_compaction_info: none committed",
                (client, peer) -> client.get_latest_committed_compaction_info(
                                new GetLatestCommittedCompactionInfoRequest(AcidTables.DATABASE, AcidTables.TABLE))
                        .getCompactions()
                        .size(),
                Function.identity());

        // Many at once.
        d.compare(
                "open_txns: more than a batch",
                (client, peer) -> {
                    List<Long> ids = client.open_txns(open(5000)).getTxn_ids();
                    return ids.size() + " from " + ids.get(0) + " to " + ids.get(ids.size() - 1);
                },
                Function.identity());
        d.compare(
                "abort_txns: open, aborted and unknown",
                (client, peer) -> {
                    client.abort_txns(new AbortTxnsRequest(List.of(7L, 8L, 4L, 99_999L)));
                    return "aborted";
                },
                Function.identity());
        d.compare(
                "abort_txns: open ones",
                (client, peer) -> {
                    client.abort_txns(new AbortTxnsRequest(List.of(9L, 10L)));
                    return "aborted";
                },
                Function.identity());
        d.compare(
                "get_open_txns: after aborting many",
                (client, peer) -> client.get_open_txns().getOpen_txns().size(),
                Function.identity());

        int comparisons = d.comparisons();
        List<Differential.Mismatch> mismatches = d.takeMismatches();
        String report = d.report(mismatches, comparisons);
        Files.writeString(Path.of("target", "hms-differential", "transactions.txt"), report, StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(mismatches).withFailMessage("%s", report).isEmpty();
    }
}
