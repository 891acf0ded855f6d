package io.treecat.lakehouse.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.HiveCompactionEntry;
import io.treecat.lakehouse.model.HiveTransactionEntry;
import io.treecat.lakehouse.model.HiveTransactionsEntry;
import io.treecat.lakehouse.model.HiveWriteIdsEntry;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouse;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hive transactions, compactions and write ids on a real store: ids, where each record goes, and races. */
class TestHiveTransactions {
    private static final ObjectPath TABLE = ObjectPath.of("lake", "db", "t");

    @TempDir
    Path directory;

    private LakeTestStores.Lake lake;
    private TransactionRunner runner;
    private Warehouse warehouse;

    @BeforeEach
    void open() {
        lake = LakeTestStores.lake(directory);
        runner = lake.runner();
        warehouse = Warehouses.underRoot("file:/w", new LocalFileIO()).forCatalog("lake");
        runner.write(access(), txn -> {
            txn.add(ObjectPath.of("lake"), io.treecat.lakehouse.model.CatalogEntry.of("file:/w/lake"));
            txn.add(TABLE.parent(), NamespaceEntry.of(Map.of()));
            txn.add(TABLE, TableEntry.hive(new byte[] {1}, "MANAGED_TABLE", "file:/w/lake/db/t", null));
            return null;
        });
    }

    @AfterEach
    void close() {
        lake.close();
    }

    private static Access access() {
        return Access.of(Principal.ANONYMOUS, Action.MANAGE_TRANSACTIONS, TABLE);
    }

    private static HiveTransactionEntry opened() {
        return HiveTransactionEntry.open("DEFAULT", "alice", "host", 1);
    }

    private <T> T read(io.treecat.lakehouse.txn.Work<T, RuntimeException> work) {
        return runner.read(access(), work);
    }

    private List<Long> open(int count) {
        return runner.write(access(), txn -> HiveTransactions.open(txn, warehouse, count, opened()));
    }

    private long allocate(ObjectPath table, List<Long> txns) {
        return runner.write(access(), txn -> HiveTransactions.allocateWriteIds(txn, table, txns));
    }

    private Optional<HiveTransactionsEntry> counters() {
        return read(txn -> HiveTransactions.counters(txn, "lake"));
    }

    private List<HiveTransactions.Transaction> openOrAborted() {
        return read(txn -> HiveTransactions.openOrAborted(txn, "lake"));
    }

    private Optional<HiveTransactionEntry> find(long id) {
        return read(txn -> HiveTransactions.find(txn, "lake", id));
    }

    private List<HiveTransactions.WriteId> writeIds(ObjectPath table, long max) {
        return read(txn -> HiveTransactions.writeIdsUpTo(txn, table, max));
    }

    private Optional<Long> transactionOf(ObjectPath table, long writeId) {
        return read(txn -> HiveTransactions.transactionOf(txn, table, writeId));
    }

    private Optional<HiveWriteIdsEntry> writeIdCounter(ObjectPath table) {
        return read(txn -> HiveTransactions.writeIdCounter(txn, table));
    }

    private List<HiveTransactions.Compaction> compactions() {
        return read(txn -> HiveTransactions.compactions(txn, "lake"));
    }

    @Test
    void idsAreConsecutiveAndTheRecordsMoveAsTheirStateDoes() {
        assertThat(counters()).isEmpty();
        List<Long> first = runner.write(access(), txn -> HiveTransactions.open(txn, warehouse, 3, opened()));
        List<Long> second = runner.write(access(), txn -> HiveTransactions.open(txn, warehouse, 2, opened()));
        assertThat(first).containsExactly(1L, 2L, 3L);
        assertThat(second).containsExactly(4L, 5L);

        runner.write(access(), txn -> {
            HiveTransactions.commit(
                    txn, "lake", 1, HiveTransactions.find(txn, "lake", 1).orElseThrow());
            HiveTransactions.update(
                    txn,
                    "lake",
                    2,
                    HiveTransactions.find(txn, "lake", 2).orElseThrow().withState(HiveTransactionEntry.State.ABORTED));
            return null;
        });

        assertThat(openOrAborted())
                .extracting(
                        HiveTransactions.Transaction::id, found -> found.entry().state())
                .containsExactly(
                        tuple(2L, HiveTransactionEntry.State.ABORTED),
                        tuple(3L, HiveTransactionEntry.State.OPEN),
                        tuple(4L, HiveTransactionEntry.State.OPEN),
                        tuple(5L, HiveTransactionEntry.State.OPEN));
        assertThat(find(1).orElseThrow().state()).isEqualTo(HiveTransactionEntry.State.COMMITTED);
        assertThat(find(6)).isEmpty();
        assertThat(find(0)).isEmpty();
        // The committed one is a leaf of its own list; the counter moved past every id handed out.
        assertThat(lake.service()
                        .get(
                                ObjectPath.of("lake", ".hive_txns", "committed", "00000000000000000001"),
                                ReadPoint.LATEST))
                .isPresent();
        assertThat(counters().orElseThrow().nextTxnId()).isEqualTo(6);
    }

    @Test
    void writeIdsLiveUnderTheirTableAndGoWithIt() {
        List<Long> txns = runner.write(access(), txn -> HiveTransactions.open(txn, warehouse, 3, opened()));
        assertThat(allocate(TABLE, txns)).isEqualTo(1);
        assertThat(allocate(TABLE, List.of(3L))).isEqualTo(4);

        assertThat(writeIds(TABLE, 3))
                .extracting(HiveTransactions.WriteId::writeId, HiveTransactions.WriteId::txnId)
                .containsExactly(tuple(1L, 1L), tuple(2L, 2L), tuple(3L, 3L));
        assertThat(writeIds(TABLE, 0)).isEmpty();
        assertThat(transactionOf(TABLE, 4)).contains(3L);
        assertThat(transactionOf(TABLE, 5)).isEmpty();
        assertThat(writeIdCounter(TABLE).orElseThrow().nextWriteId()).isEqualTo(5);

        // A rename moves them with the table; a drop removes them.
        ObjectPath renamed = ObjectPath.of("lake", "db", "u");
        runner.write(access(), txn -> {
            Tables.move(txn, TABLE, renamed, false);
            return null;
        });
        assertThat(transactionOf(renamed, 4)).contains(3L);
        runner.write(access(), txn -> {
            txn.remove(renamed);
            return null;
        });
        assertThat(writeIdCounter(renamed)).isEmpty();
    }

    @Test
    void twoClientsDrawingFromOneCounterConflictAndTheRunnerDrawsAgain() {
        // One attempt each, the second starting while the first has read the counter: the second fails validation.
        TransactionRunner once = new TransactionRunner(
                () -> lake.service(),
                io.treecat.lakehouse.auth.Authorizer.allowAll(),
                RetryPolicy.NONE,
                duration -> {});
        List<Long> inner = new java.util.ArrayList<>();
        assertThatThrownBy(() -> once.write(access(), (LakeTransaction outer) -> {
                    List<Long> mine = HiveTransactions.open(outer, warehouse, 1, opened());
                    inner.addAll(once.write(access(), txn -> HiveTransactions.open(txn, warehouse, 1, opened())));
                    return mine;
                }))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT));
        assertThat(inner).containsExactly(1L);
        // With retries, the loser runs again and draws the next id.
        assertThat(open(1)).containsExactly(2L);
    }

    @Test
    void compactionsAreListedInIdOrder() {
        for (String partition : new String[] {"ds=2", "ds=1", null}) {
            runner.write(
                    access(),
                    txn -> HiveTransactions.addCompaction(
                            txn, warehouse, HiveCompactionEntry.of("db", "t", partition, "initiated", 7, new byte[] {9
                            })));
        }
        assertThat(compactions())
                .extracting(
                        HiveTransactions.Compaction::id, found -> found.entry().partition())
                .containsExactly(tuple(1L, "ds=2"), tuple(2L, "ds=1"), tuple(3L, null));
        // Compactions and transactions share the counters object, not the ids.
        assertThat(open(1)).containsExactly(1L);
    }
}
