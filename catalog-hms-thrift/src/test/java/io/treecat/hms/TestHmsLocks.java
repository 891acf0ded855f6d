package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.TxnOpenException;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lock table's rules, on a hand-moved clock and a real tree (which it survives restarts in). */
class TestHmsLocks {
    /** A clock the test moves. */
    static final class MovingClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final MovingClock clock = new MovingClock();

    @TempDir
    Path directory;

    private CatalogService catalog;
    private HmsLocks locks;

    @BeforeEach
    void open() {
        catalog = CatalogService.open(directory.resolve("db"));
        locks = locks(catalog);
    }

    @AfterEach
    void close() {
        catalog.close();
    }

    /** The lock table on {@code service}'s tree, catalog {@code warehouse}. */
    private HmsLocks locks(CatalogService service) {
        HmsCalls calls = new HmsCalls(
                new TransactionRunner(() -> service, Authorizer.allowAll()),
                Warehouses.underRoot(
                        directory.resolve("warehouse").toUri().toString(),
                        new LocalFileIO(),
                        ExternalLocations.ALLOWED),
                new HmsNames("warehouse"));
        return new HmsLocks(calls, clock, Duration.ofSeconds(300));
    }

    /** Closes the tree and opens it again with a new lock table, as a restart of the server does. */
    private void restart() {
        catalog.close();
        catalog = CatalogService.open(directory.resolve("db"));
        locks = locks(catalog);
    }

    static LockComponent db(LockType type, String db) {
        return new LockComponent(type, LockLevel.DB, db);
    }

    static LockComponent table(LockType type, String db, String table) {
        LockComponent component = new LockComponent(type, LockLevel.TABLE, db);
        component.setTablename(table);
        return component;
    }

    static LockComponent partition(LockType type, String db, String table, String partition) {
        LockComponent component = new LockComponent(type, LockLevel.PARTITION, db);
        component.setTablename(table);
        component.setPartitionname(partition);
        return component;
    }

    private LockResponse lock(LockComponent... components) throws Exception {
        LockRequest request = new LockRequest(List.of(components), "alice", "host");
        request.setAgentInfo("agent-" + components.length);
        return locks.lock(request, OPEN_TXNS);
    }

    /** Transaction 8 is open; every other is unknown. */
    private static final HmsLocks.TransactionCheck OPEN_TXNS = (txn, id) -> {
        if (id != 8) {
            throw new NoSuchTxnException("No such transaction txnid:" + id);
        }
    };

    static HeartbeatRequest beat(long lockid, long txnid) {
        HeartbeatRequest request = new HeartbeatRequest();
        request.setLockid(lockid);
        request.setTxnid(txnid);
        return request;
    }

    private LockState check(LockResponse lock) throws Exception {
        return locks.check(new CheckLockRequest(lock.getLockid())).getState();
    }

    @Test
    void lockTypeMatrixIsHive4s() {
        LockType[] types = {LockType.SHARED_READ, LockType.SHARED_WRITE, LockType.EXCL_WRITE, LockType.EXCLUSIVE};
        // Rows and columns in the order above: true = conflict.
        boolean[][] expected = {
            {false, false, false, true},
            {false, false, true, true},
            {false, true, true, true},
            {true, true, true, true}
        };
        for (int i = 0; i < types.length; i++) {
            for (int j = 0; j < types.length; j++) {
                assertThat(HmsLocks.typesConflict(types[i], types[j]))
                        .as(types[i] + " vs " + types[j])
                        .isEqualTo(expected[i][j]);
            }
        }
    }

    @Test
    void aSecondExclusiveLockWaitsUntilTheFirstIsUnlocked() throws Exception {
        LockResponse first = lock(table(LockType.EXCLUSIVE, "db", "t"));
        assertThat(first.getState()).isEqualTo(LockState.ACQUIRED);
        LockResponse second = lock(table(LockType.EXCLUSIVE, "DB", "T"));
        assertThat(second.getState()).isEqualTo(LockState.WAITING);
        assertThat(check(second)).isEqualTo(LockState.WAITING);
        // Another table is free.
        assertThat(lock(table(LockType.EXCLUSIVE, "db", "other")).getState()).isEqualTo(LockState.ACQUIRED);

        locks.unlock(new UnlockRequest(first.getLockid()));
        assertThat(check(second)).isEqualTo(LockState.ACQUIRED);
        // Unlocking again is a no-op, as in Hive; the lock is gone for check_lock.
        locks.unlock(new UnlockRequest(first.getLockid()));
        assertThatThrownBy(() -> locks.check(new CheckLockRequest(first.getLockid())))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageStartingWith("No such lock lockid:" + first.getLockid());
    }

    @Test
    void sharedLocksShareAndWaitingWritersAreNotStarved() throws Exception {
        LockResponse read1 = lock(table(LockType.SHARED_READ, "db", "t"));
        LockResponse write1 = lock(table(LockType.SHARED_WRITE, "db", "t"));
        LockResponse write2 = lock(table(LockType.SHARED_WRITE, "db", "t"));
        assertThat(List.of(read1.getState(), write1.getState(), write2.getState()))
                .containsOnly(LockState.ACQUIRED);
        LockResponse exclusiveWrite = lock(table(LockType.EXCL_WRITE, "db", "t"));
        assertThat(exclusiveWrite.getState()).isEqualTo(LockState.WAITING);
        // A reader is compatible with EXCL_WRITE and with the shared writers.
        assertThat(lock(table(LockType.SHARED_READ, "db", "t")).getState()).isEqualTo(LockState.ACQUIRED);
        // A later shared writer queues behind the waiting EXCL_WRITE instead of overtaking it.
        LockResponse write3 = lock(table(LockType.SHARED_WRITE, "db", "t"));
        assertThat(write3.getState()).isEqualTo(LockState.WAITING);

        locks.unlock(new UnlockRequest(write1.getLockid()));
        locks.unlock(new UnlockRequest(write2.getLockid()));
        assertThat(check(exclusiveWrite)).isEqualTo(LockState.ACQUIRED);
        assertThat(check(write3)).isEqualTo(LockState.WAITING);
        locks.unlock(new UnlockRequest(exclusiveWrite.getLockid()));
        assertThat(check(write3)).isEqualTo(LockState.ACQUIRED);
    }

    @Test
    void componentsConflictHierarchically() throws Exception {
        LockResponse partitionLock = lock(partition(LockType.EXCLUSIVE, "db", "t", "day=1"));
        assertThat(partitionLock.getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(lock(partition(LockType.EXCLUSIVE, "db", "t", "day=2")).getState())
                .isEqualTo(LockState.ACQUIRED);
        // The table covers its partitions, the database its tables.
        LockResponse tableLock = lock(table(LockType.SHARED_READ, "db", "t"));
        assertThat(tableLock.getState()).isEqualTo(LockState.WAITING);
        LockResponse dbLock = lock(db(LockType.EXCLUSIVE, "db"));
        assertThat(dbLock.getState()).isEqualTo(LockState.WAITING);
        assertThat(lock(table(LockType.SHARED_READ, "other", "t")).getState()).isEqualTo(LockState.ACQUIRED);

        // A database-level shared read keeps the database, not the tables in it: it does not block a table writer.
        LockResponse dbRead = lock(db(LockType.SHARED_READ, "db2"));
        assertThat(dbRead.getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(lock(table(LockType.EXCLUSIVE, "db2", "t")).getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(lock(db(LockType.EXCLUSIVE, "db2")).getState()).isEqualTo(LockState.WAITING);

        // A request is all its components at once: one blocked component holds the whole request.
        LockResponse both = lock(table(LockType.SHARED_READ, "db3", "free"), table(LockType.EXCLUSIVE, "db", "t"));
        assertThat(both.getState()).isEqualTo(LockState.WAITING);
        List<ShowLocksResponseElement> shown = locks.show(new ShowLocksRequest()).getLocks().stream()
                .filter(e -> e.getLockid() == both.getLockid())
                .toList();
        assertThat(shown).hasSize(2).allSatisfy(e -> assertThat(e.getState()).isEqualTo(LockState.WAITING));
        assertThat(shown)
                .extracting(ShowLocksResponseElement::getLockIdInternal)
                .containsExactly(1L, 2L);
        assertThat(shown.get(0).getBlockedByExtId()).isEqualTo(partitionLock.getLockid());
    }

    @Test
    void aLockNotHeartbeatedWithinTheTimeoutIsReleased() throws Exception {
        LockResponse first = lock(table(LockType.EXCLUSIVE, "db", "t"));
        LockResponse second = lock(table(LockType.EXCLUSIVE, "db", "t"));
        assertThat(second.getState()).isEqualTo(LockState.WAITING);
        clock.advance(Duration.ofSeconds(200));
        locks.heartbeat(first.getLockid());
        assertThat(check(second)).isEqualTo(LockState.WAITING); // checking heartbeats the waiter too
        clock.advance(Duration.ofSeconds(200));
        locks.heartbeat(first.getLockid());
        assertThat(check(second)).isEqualTo(LockState.WAITING);

        // The holder goes silent: 300 s later its lock is gone and the waiter has it.
        clock.advance(Duration.ofSeconds(299));
        assertThat(check(second)).isEqualTo(LockState.WAITING);
        clock.advance(Duration.ofSeconds(2));
        assertThat(check(second)).isEqualTo(LockState.ACQUIRED);
        assertThatThrownBy(() -> locks.heartbeat(first.getLockid()))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageContaining("expired after 300000 ms");
        assertThatThrownBy(() -> locks.check(new CheckLockRequest(first.getLockid())))
                .isInstanceOf(NoSuchLockException.class);
    }

    @Test
    void showLocksFiltersAndCarriesAgentInfo() throws Exception {
        LockResponse t = lock(table(LockType.EXCLUSIVE, "db", "t"));
        lock(table(LockType.SHARED_READ, "db", "u"), table(LockType.SHARED_READ, "db", "v"));
        lock(partition(LockType.SHARED_WRITE, "other", "t", "day=1"));
        clock.advance(Duration.ofSeconds(5));
        locks.heartbeat(t.getLockid());

        ShowLocksRequest byTable = new ShowLocksRequest();
        byTable.setDbname("@hive#DB");
        byTable.setTablename("T");
        List<ShowLocksResponseElement> shown = locks.show(byTable).getLocks();
        assertThat(shown).hasSize(1);
        ShowLocksResponseElement element = shown.get(0);
        assertThat(element.getLockid()).isEqualTo(t.getLockid());
        assertThat(element.getDbname()).isEqualTo("db");
        assertThat(element.getTablename()).isEqualTo("t");
        assertThat(element.getType()).isEqualTo(LockType.EXCLUSIVE);
        assertThat(element.getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(element.getAgentInfo()).isEqualTo("agent-1");
        assertThat(element.getUser()).isEqualTo("alice");
        assertThat(element.getHostname()).isEqualTo("host");
        assertThat(element.getHeartbeatCount()).isEqualTo(1);
        assertThat(element.getLastheartbeat()).isEqualTo(element.getAcquiredat() + 5000);

        ShowLocksRequest byDb = new ShowLocksRequest();
        byDb.setDbname("db");
        assertThat(locks.show(byDb).getLocks())
                .extracting(ShowLocksResponseElement::getTablename)
                .containsExactly("t", "u", "v");
        assertThat(locks.show(new ShowLocksRequest()).getLocks()).hasSize(4);
        // As Hive: no heartbeat count before the first heartbeat; a waiting lock names the lock and the component
        // (from 1) it waits behind.
        LockResponse waiting = lock(table(LockType.SHARED_READ, "db", "v"), table(LockType.EXCLUSIVE, "db", "u"));
        ShowLocksRequest byU = new ShowLocksRequest();
        byU.setDbname("db");
        byU.setTablename("u");
        ShowLocksResponseElement blocked = locks.show(byU).getLocks().stream()
                .filter(shownLock -> shownLock.getLockid() == waiting.getLockid())
                .findFirst()
                .orElseThrow();
        assertThat(blocked.getState()).isEqualTo(LockState.WAITING);
        assertThat(blocked.isSetHeartbeatCount()).isFalse();
        assertThat(blocked.getBlockedByIntId()).isEqualTo(1);
        locks.unlock(new UnlockRequest(waiting.getLockid()));
        ShowLocksRequest byPartition = new ShowLocksRequest();
        byPartition.setPartname("day=1");
        assertThat(locks.show(byPartition).getLocks())
                .extracting(ShowLocksResponseElement::getDbname)
                .containsExactly("other");
    }

    @Test
    void locksInATransactionLiveAndGoWithIt() throws Exception {
        LockRequest unknown = new LockRequest(List.of(table(LockType.EXCLUSIVE, "db", "t")), "alice", "host");
        unknown.setTxnid(7);
        assertThatThrownBy(() -> locks.lock(unknown, OPEN_TXNS))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessage("No such transaction txnid:7");
        assertThat(locks.size()).isZero();

        // Two locks of one transaction never conflict; another client's waits behind them.
        LockRequest write = new LockRequest(List.of(table(LockType.EXCLUSIVE, "db", "t")), "alice", "host");
        write.setTxnid(8);
        write.setAgentInfo("txn-8");
        LockResponse first = locks.lock(write, OPEN_TXNS);
        LockResponse second = locks.lock(write, OPEN_TXNS);
        assertThat(List.of(first.getState(), second.getState())).containsOnly(LockState.ACQUIRED);
        LockResponse other = lock(table(LockType.SHARED_READ, "db", "t"));
        assertThat(other.getState()).isEqualTo(LockState.WAITING);
        assertThat(locks.holdsTransactionLocks()).isTrue();
        assertThat(locks.transactionOf(first.getLockid())).isEqualTo(8);
        assertThat(locks.transactionOf(other.getLockid())).isZero();

        // The transaction's heartbeat keeps them, not their own: silence does not release them here.
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofSeconds(200));
            assertThat(check(other)).isEqualTo(LockState.WAITING);
        }
        locks.heartbeat(first.getLockid());
        ShowLocksRequest ofTxn = new ShowLocksRequest();
        ofTxn.setTxnid(8);
        assertThat(locks.show(ofTxn).getLocks())
                .extracting(ShowLocksResponseElement::getTxnid, ShowLocksResponseElement::getLastheartbeat)
                .containsExactly(tuple(8L, 0L), tuple(8L, 0L));
        assertThatThrownBy(() -> locks.unlock(new UnlockRequest(first.getLockid())))
                .isInstanceOf(TxnOpenException.class)
                .hasMessage("Unlocking locks associated with transaction not permitted.  lockid:" + first.getLockid()
                        + " intLockId:1 txnid:8 db:db table:t partition:null state:ACQUIRED type:EXCLUSIVE");

        // Its end releases them, and the waiter gets the table.
        locks.releaseTransaction(8);
        assertThat(check(other)).isEqualTo(LockState.ACQUIRED);
        assertThat(locks.holdsTransactionLocks()).isFalse();
        assertThatThrownBy(() -> locks.check(new CheckLockRequest(first.getLockid())))
                .isInstanceOf(NoSuchLockException.class);
    }

    @Test
    void badRequestsAreClearErrors() throws Exception {
        assertThatThrownBy(() -> locks.heartbeat(12345))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageStartingWith("No such lock lockid:12345");
        assertThatThrownBy(() -> locks.lock(new LockRequest(List.of(), "alice", "host"), OPEN_TXNS))
                .isInstanceOf(MetaException.class)
                .hasMessage("A lock request needs at least one component");
        assertThatThrownBy(() -> locks.lock(
                        new LockRequest(
                                List.of(new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, "db")), "alice", "host"),
                        OPEN_TXNS))
                .isInstanceOf(MetaException.class)
                .hasMessage("A TABLE-level lock component needs a table name");
        assertThatThrownBy(() -> locks.lock(
                        new LockRequest(List.of(table(LockType.EXCLUSIVE, "@spark#db", "t")), "alice", "host"),
                        OPEN_TXNS))
                .isInstanceOf(MetaException.class);
        // Nothing was taken by the failed requests; a heartbeat without ids is Hive's no-op.
        locks.heartbeat(0);
        assertThat(locks.size()).isZero();
    }

    @Test
    void locksSurviveARestartAndIdsAreNeverReused() throws Exception {
        LockResponse held = lock(table(LockType.EXCLUSIVE, "db", "t"));
        LockResponse waiting = lock(table(LockType.EXCLUSIVE, "db", "t"));
        LockRequest inTxn = new LockRequest(List.of(table(LockType.EXCL_WRITE, "db", "u")), "bob", "host");
        inTxn.setTxnid(8);
        LockResponse txnLock = locks.lock(inTxn, OPEN_TXNS);
        LockResponse released = lock(table(LockType.SHARED_READ, "db", "gone"));
        locks.unlock(new UnlockRequest(released.getLockid()));

        restart();

        // Each lock is where it was: held, waiting behind the holder, the transaction's still blocking.
        assertThat(check(held)).isEqualTo(LockState.ACQUIRED);
        assertThat(check(waiting)).isEqualTo(LockState.WAITING);
        assertThat(lock(table(LockType.SHARED_WRITE, "db", "u")).getState()).isEqualTo(LockState.WAITING);
        assertThat(locks.transactionOf(txnLock.getLockid())).isEqualTo(8);
        assertThat(locks.show(new ShowLocksRequest()).getLocks())
                .extracting(ShowLocksResponseElement::getLockid, ShowLocksResponseElement::getState)
                .startsWith(
                        tuple(held.getLockid(), LockState.ACQUIRED),
                        tuple(waiting.getLockid(), LockState.WAITING),
                        tuple(txnLock.getLockid(), LockState.ACQUIRED));
        // A released lock stays released, and the next id is past every id handed out before.
        assertThatThrownBy(() -> locks.check(new CheckLockRequest(released.getLockid())))
                .isInstanceOf(NoSuchLockException.class);
        LockResponse after = lock(table(LockType.SHARED_READ, "db", "v"));
        assertThat(after.getLockid()).isGreaterThan(released.getLockid());

        locks.unlock(new UnlockRequest(held.getLockid()));
        assertThat(check(waiting)).isEqualTo(LockState.ACQUIRED);
    }

    @Test
    void aLockSilentAcrossARestartExpiresAsInHive() throws Exception {
        LockResponse silent = lock(table(LockType.EXCLUSIVE, "db", "t"));
        LockResponse beating = lock(table(LockType.EXCLUSIVE, "db", "u"));
        clock.advance(Duration.ofSeconds(200));
        locks.heartbeat(beating.getLockid());

        restart();
        clock.advance(
                Duration.ofSeconds(200)); // 400 s since the silent lock's last sign of life, 200 since the other's

        assertThatThrownBy(() -> locks.heartbeat(silent.getLockid()))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageStartingWith("No such lock lockid:" + silent.getLockid());
        assertThatThrownBy(() -> locks.check(new CheckLockRequest(silent.getLockid())))
                .isInstanceOf(NoSuchLockException.class);
        assertThat(check(beating)).isEqualTo(LockState.ACQUIRED);
        // Its table is free again.
        assertThat(lock(table(LockType.EXCLUSIVE, "db", "t")).getState()).isEqualTo(LockState.ACQUIRED);
    }
}
