package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hive.common.ValidTxnList;
import org.apache.hadoop.hive.common.ValidWriteIdList;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.CompactionResponse;
import org.apache.hadoop.hive.metastore.api.CompactionType;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsInfoResponse;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.ShowCompactResponseElement;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TxnAbortedException;
import org.apache.hadoop.hive.metastore.api.TxnInfo;
import org.apache.hadoop.hive.metastore.api.TxnOpenException;
import org.apache.hadoop.hive.metastore.api.TxnState;
import org.apache.hadoop.hive.metastore.txn.TxnCommonUtils;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive transactions through Hive 4.1's own {@code HiveMetaStoreClient}, as Hive's {@code DbTxnManager} drives them: the
 * life of a transactional write and the snapshot a reader takes (its {@code ValidTxnList} and {@code ValidWriteIdList}
 * strings, as Hive's readers pass them on), expiry on a hand-moved clock, counters that survive a restart, many
 * clients drawing ids at once, and bad input.
 */
class TestHiveClientTransactions {
    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    private final TestHmsLocks.MovingClock clock = new TestHmsLocks.MovingClock();

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withClock(clock, TIMEOUT);

    private HiveMetaStoreClient client;

    @BeforeEach
    void createTables() throws Exception {
        client = hms.hiveClient();
        Database db = new Database();
        db.setName("db");
        client.createDatabase(db);
        client.createTable(table("t", false));
        client.createTable(table("p", true));
    }

    private static Table table(String name, boolean partitioned) {
        StorageDescriptor storage = new StorageDescriptor();
        storage.setCols(List.of(new FieldSchema("id", "bigint", null)));
        storage.setInputFormat("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat");
        storage.setOutputFormat("org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat");
        storage.setSerdeInfo(new SerDeInfo(name, "org.apache.hadoop.hive.ql.io.orc.OrcSerde", new HashMap<>()));
        Table table = new Table();
        table.setDbName("db");
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        table.setSd(storage);
        table.setPartitionKeys(partitioned ? List.of(new FieldSchema("ds", "string", null)) : new ArrayList<>());
        table.setParameters(new HashMap<>(Map.of("transactional", "true")));
        return table;
    }

    private static LockRequest lockIn(long txnId, LockType type, String table) {
        LockComponent component = new LockComponent(type, LockLevel.TABLE, "db");
        component.setTablename(table);
        component.setOperationType(DataOperationType.INSERT);
        component.setIsTransactional(true);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "alice", "host");
        request.setTxnid(txnId);
        return request;
    }

    @Test
    void everyTransactionCallIsServed() {
        // A signature that does not match the Iface exactly would silently stay UNKNOWN_METHOD.
        assertThat(TreeCatHmsServer.servedCalls())
                .contains(
                        "open_txns",
                        "commit_txn",
                        "abort_txn",
                        "abort_txns",
                        "get_open_txns",
                        "get_open_txns_req",
                        "get_open_txns_info",
                        "heartbeat",
                        "heartbeat_txn_range",
                        "allocate_table_write_ids",
                        "get_max_allocated_table_write_id",
                        "get_valid_write_ids",
                        "add_dynamic_partitions",
                        "compact",
                        "compact2",
                        "show_compact",
                        "get_latest_committed_compaction_info");
    }

    @Test
    void aWriteThenReadersSeeWhatCommitted() throws Exception {
        long writer = client.openTxn("alice");
        assertThat(writer).isEqualTo(1);
        LockResponse lock = client.lock(lockIn(writer, LockType.SHARED_WRITE, "t"));
        assertThat(lock.getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(client.allocateTableWriteId(writer, "db", "t")).isEqualTo(1);
        assertThat(client.allocateTableWriteId(writer, "DB", "T")).isEqualTo(1); // the same, asked again
        ShowLocksRequest ofWriter = new ShowLocksRequest();
        ofWriter.setTxnid(writer);
        assertThat(client.showLocks(ofWriter).getLocks())
                .extracting(ShowLocksResponseElement::getTablename, ShowLocksResponseElement::getTxnid)
                .containsExactly(tuple("t", writer));
        assertThatThrownBy(() -> client.unlock(lock.getLockid()))
                .isInstanceOf(TxnOpenException.class)
                .hasMessageStartingWith("Unlocking locks associated with transaction not permitted.");

        // A reader while the write is open: write id 1 is open, so it reads none of it.
        ValidWriteIdList during = client.getValidWriteIds("db.t");
        assertThat(during.writeToString()).isEqualTo("db.t:1:1:1:");
        assertThat(during.isWriteIdValid(1)).isFalse();
        ValidTxnList snapshot = client.getValidTxns();
        assertThat(snapshot.isTxnValid(writer)).isFalse();

        client.commitTxn(writer);
        assertThat(client.showLocks(new ShowLocksRequest()).getLocks()).isEmpty();
        assertThat(client.getValidWriteIds("db.t").writeToString()).isEqualTo("db.t:1:9223372036854775807::");
        // The snapshot taken before the commit still does not see it: the reader's view, as Hive's readers keep it.
        assertThat(TxnCommonUtils.createValidReaderWriteIdList(
                                client.getValidWriteIds(List.of("db.t"), snapshot.writeToString())
                                        .get(0))
                        .writeToString())
                .isEqualTo("db.t:1:1:1:");

        // A second write aborts: its write id is aborted for every reader from now on.
        long aborted = client.openTxn("bob");
        assertThat(client.allocateTableWriteId(aborted, "db", "t")).isEqualTo(2);
        client.rollbackTxn(aborted);
        assertThat(client.getValidWriteIds("db.t").writeToString()).isEqualTo("db.t:2:9223372036854775807::2");
        ValidTxnList now = client.getValidTxns();
        assertThat(now.isTxnValid(writer)).isTrue();
        assertThat(now.isTxnAborted(aborted)).isTrue();
        GetOpenTxnsInfoResponse shown = client.showTxns();
        assertThat(shown.getTxn_high_water_mark()).isEqualTo(2);
        assertThat(shown.getOpen_txns())
                .extracting(TxnInfo::getId, TxnInfo::getState, TxnInfo::getUser)
                .containsExactly(tuple(aborted, TxnState.ABORTED, "bob"));

        // Hive's answers for what cannot be done any more.
        assertThatThrownBy(() -> client.commitTxn(aborted))
                .isInstanceOf(TxnAbortedException.class)
                .hasMessage("Transaction txnid:2 already aborted");
        assertThatThrownBy(() -> client.rollbackTxn(writer))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("Transaction txnid:1 is already committed.");
        client.commitTxn(writer); // a retried commit succeeds, as in Hive
        assertThatThrownBy(() -> client.commitTxn(99))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("No such transaction txnid:99");
        assertThatThrownBy(() -> client.heartbeat(aborted, 0))
                .isInstanceOf(TxnAbortedException.class)
                .hasMessage("Transaction txnid:2 already aborted");
        assertThatThrownBy(() -> client.allocateTableWriteId(aborted, "db", "t"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Write ID allocation failed on db.t as not all input txns in open state or read-only:"
                        + " {2,ABORTED}");
        assertThat(client.getMaxAllocatedWriteId("db", "t")).isEqualTo(2);
    }

    @Test
    void aPartitionedWriteAndCompactionRequests() throws Exception {
        List<Long> txns = client.openTxns("alice", 3).getTxn_ids();
        assertThat(txns).containsExactly(1L, 2L, 3L);
        assertThat(client.allocateTableWriteIdsBatch(txns, "db", "p"))
                .extracting(id -> id.getTxnId() + "->" + id.getWriteId())
                .containsExactly("1->1", "2->2", "3->3");
        client.addDynamicPartitions(1, 1, "db", "p", List.of("ds=1", "ds=2"), DataOperationType.INSERT);
        assertThat(client.heartbeatTxnRange(1, 4).getNosuch()).containsExactly(4L);
        client.commitTxn(1);
        client.abortTxns(List.of(2L, 3L));
        assertThat(client.getValidWriteIds("db.p").writeToString()).isEqualTo("db.p:3:9223372036854775807::2,3");

        CompactionResponse first = client.compact2("db", "p", "ds=1", CompactionType.MINOR, Map.of());
        assertThat(first.isAccepted()).isTrue();
        assertThat(first.getState()).isEqualTo("initiated");
        CompactionResponse again = client.compact2("db", "p", "ds=1", CompactionType.MAJOR, Map.of());
        assertThat(again.isAccepted()).isFalse();
        assertThat(again.getErrormessage())
                .isEqualTo("Compaction is already scheduled with state='initiated' and id=" + first.getId());
        client.compact2("db", "t", null, CompactionType.MAJOR, Map.of());
        assertThat(client.showCompactions().getCompacts())
                .extracting(
                        ShowCompactResponseElement::getTablename,
                        ShowCompactResponseElement::getPartitionname,
                        ShowCompactResponseElement::getType,
                        ShowCompactResponseElement::getState)
                .containsExactly(
                        tuple("p", "ds=1", CompactionType.MINOR, "initiated"),
                        tuple("t", null, CompactionType.MAJOR, "initiated"));
    }

    @Test
    void aTableOfAnotherCatalogHasItsOwnWriteIdsInTheMetastoresTransaction() throws Exception {
        client.createCatalog(
                new Catalog("sales", hms.directory().resolve("sales").toUri().toString()));
        Database db = new Database();
        db.setName("db");
        db.setCatalogName("sales");
        client.createDatabase(db);
        Table table = table("t", false);
        table.setCatName("sales");
        client.createTable(table);

        long txn = client.openTxn("alice");
        assertThat(client.allocateTableWriteId(txn, "db", "t")).isEqualTo(1);
        assertThat(client.allocateTableWriteId(txn, "@sales#db", "t")).isEqualTo(1); // its own sequence
        assertThat(client.allocateTableWriteId(txn, "@sales#db", "t")).isEqualTo(1); // and again the same
        client.commitTxn(txn);
        // The transaction is the metastore's, in hive's catalog; each table's write ids are below it, in its own.
        assertThat(hms.catalog()
                        .get(
                                ObjectPath.of("warehouse", ".hive_txns", "committed", "00000000000000000001"),
                                ReadPoint.LATEST))
                .isPresent();
        assertThat(hms.catalog()
                        .get(
                                ObjectPath.of("sales", "db", "t", ".hive_write_ids", "00000000000000000001"),
                                ReadPoint.LATEST))
                .isPresent();
        assertThat(hms.catalog().get(ObjectPath.of("sales", ".hive_txns"), ReadPoint.LATEST))
                .isEmpty();
    }

    @Test
    void aSilentTransactionExpiresAndItsLocksGo() throws Exception {
        long silent = client.openTxn("alice");
        long alive = client.openTxn("bob");
        assertThat(client.lock(lockIn(silent, LockType.EXCL_WRITE, "t")).getState())
                .isEqualTo(LockState.ACQUIRED);
        LockResponse waiting = hms.hiveClient().lock(lockIn(alive, LockType.EXCL_WRITE, "t"));
        assertThat(waiting.getState()).isEqualTo(LockState.WAITING);

        clock.advance(Duration.ofSeconds(200));
        client.heartbeat(alive, 0);
        assertThat(client.checkLock(waiting.getLockid()).getState()).isEqualTo(LockState.WAITING);
        clock.advance(Duration.ofSeconds(100)); // silent: exactly the timeout, not past it
        assertThat(client.checkLock(waiting.getLockid()).getState()).isEqualTo(LockState.WAITING);
        clock.advance(Duration.ofSeconds(2));

        // Past the timeout: the next call aborts it, as Hive's housekeeping would, and its lock goes with it.
        assertThat(client.checkLock(waiting.getLockid()).getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(client.showTxns().getOpen_txns())
                .extracting(TxnInfo::getId, TxnInfo::getState)
                .containsExactly(tuple(silent, TxnState.ABORTED), tuple(alive, TxnState.OPEN));
        assertThatThrownBy(() -> client.commitTxn(silent))
                .isInstanceOf(TxnAbortedException.class)
                .hasMessage("Transaction txnid:1 already aborted");
        client.commitTxn(alive);
        assertThat(client.showLocks(new ShowLocksRequest()).getLocks()).isEmpty();
    }

    @Test
    void countersAndStatesSurviveARestart() throws Exception {
        List<Long> before = client.openTxns("alice", 3).getTxn_ids();
        client.allocateTableWriteId(before.get(0), "db", "t");
        client.allocateTableWriteId(before.get(1), "db", "t");
        client.commitTxn(before.get(0));
        client.rollbackTxn(before.get(1));
        long compaction =
                client.compact2("db", "t", null, CompactionType.MAJOR, Map.of()).getId();

        hms.restart();
        HiveMetaStoreClient after = hms.hiveClient();

        assertThat(after.openTxn("alice")).isEqualTo(4);
        assertThat(after.allocateTableWriteId(before.get(2), "db", "t")).isEqualTo(3);
        assertThat(after.getValidTxns().isTxnAborted(before.get(1))).isTrue();
        assertThat(after.showTxns().getOpen_txns())
                .extracting(TxnInfo::getId, TxnInfo::getState)
                .containsExactly(tuple(2L, TxnState.ABORTED), tuple(3L, TxnState.OPEN), tuple(4L, TxnState.OPEN));
        assertThat(after.compact2("db", "p", null, CompactionType.MAJOR, Map.of())
                        .getId())
                .isEqualTo(compaction + 1);
        after.commitTxn(before.get(0)); // committed before the restart: still committed
    }

    @Test
    void clientsDrawingIdsAtOnceNeverShareOne() throws Exception {
        int clients = 6;
        int each = 15;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        Set<Long> txns = ConcurrentHashMap.newKeySet();
        Set<Long> writeIds = ConcurrentHashMap.newKeySet();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                HiveMetaStoreClient own = hms.hiveClient();
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        long txn = own.openTxn("racer");
                        txns.add(txn);
                        writeIds.add(own.allocateTableWriteId(txn, "db", "t"));
                        own.commitTxn(txn);
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(txns).hasSize(clients * each).allMatch(id -> id >= 1 && id <= clients * each);
        assertThat(writeIds).hasSize(clients * each).allMatch(id -> id >= 1 && id <= clients * each);
        assertThat(client.getValidWriteIds("db.t").writeToString())
                .isEqualTo("db.t:" + clients * each + ":9223372036854775807::");
    }

    @Test
    void badInputGetsHivesAnswerAndChangesNothing() throws Exception {
        // open_txns declares no exception of its own: Hive's client sees its refusals as internal errors.
        assertThatThrownBy(() -> client.openTxns("alice", 0))
                .isInstanceOf(TApplicationException.class)
                .hasMessage("Internal error processing open_txns");
        assertThatThrownBy(() -> client.openTxns("alice", -5))
                .isInstanceOf(TApplicationException.class)
                .hasMessage("Internal error processing open_txns");
        // More than a batch opens a batch, as Hive bounds it (metastore.txn.max.open.batch).
        List<Long> batch = client.openTxns("alice", 1_000_000).getTxn_ids();
        assertThat(batch).hasSize(HmsTransactions.MAX_OPEN_BATCH);
        assertThat(batch.get(batch.size() - 1)).isEqualTo(HmsTransactions.MAX_OPEN_BATCH);
        client.abortTxns(batch);

        assertThatThrownBy(() -> client.allocateTableWriteId(12_345, "db", "t"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Write ID allocation failed on db.t as not all input txns in open state or read-only:"
                        + " {12345,unknown}");
        long open = client.openTxn("alice");
        assertThatThrownBy(() -> client.allocateTableWriteId(open, "db", "missing"))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Table db.missing does not exist");
        assertThatThrownBy(() -> client.allocateTableWriteId(open, "@spark#db", "t"))
                .isInstanceOf(MetaException.class)
                .hasMessageStartingWith("Table db.t does not exist in catalog spark:");
        assertThatThrownBy(() -> client.getValidWriteIds(List.of("no_database"), ""))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid table name 'no_database': expected <database>.<table>");
        assertThatThrownBy(() -> client.getValidWriteIds(List.of("db.t"), "x:y"))
                .isInstanceOf(MetaException.class)
                .hasMessage("Invalid valid transaction list 'x:y': For input string: \"x\"");
        assertThatThrownBy(() -> client.getValidWriteIds("db.t", 7L))
                .isInstanceOf(MetaException.class)
                .hasMessage("invalid write id 7 for table db.t");
        assertThatThrownBy(() -> client.heartbeatTxnRange(5, 1))
                .isInstanceOf(TApplicationException.class)
                .hasMessage("Internal error processing heartbeat_txn_range");
        assertThatThrownBy(() -> client.heartbeatTxnRange(1, 1 + HmsTransactions.MAX_HEARTBEAT_RANGE))
                .isInstanceOf(TApplicationException.class)
                .hasMessage("Internal error processing heartbeat_txn_range");
        assertThatThrownBy(() -> client.lock(lockIn(12_345, LockType.SHARED_READ, "t")))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("No such transaction txnid:12345");
        assertThatThrownBy(() ->
                        client.addDynamicPartitions(12_345, 1, "db", "p", List.of("ds=1"), DataOperationType.INSERT))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("No such transaction txnid:12345");

        // None of it changed anything: the next write id of the table is still its first.
        assertThat(client.allocateTableWriteId(open, "db", "t")).isEqualTo(1);
        assertThat(client.showLocks(new ShowLocksRequest()).getLocks()).isEmpty();
        assertThat(client.getAllDatabases()).contains("db");
    }
}
