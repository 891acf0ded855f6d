package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.junit.jupiter.api.Test;

/** The lock table's rules, on a hand-moved clock. */
class TestHmsLocks {
    /** A clock the test moves. */
    static final class MovingClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

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
    private final HmsLocks locks = new HmsLocks(clock, Duration.ofSeconds(300), new HmsNames("warehouse"));

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
        return locks.lock(request);
    }

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
        locks.heartbeat(beat(first.getLockid(), 0));
        assertThat(check(second)).isEqualTo(LockState.WAITING); // checking heartbeats the waiter too
        clock.advance(Duration.ofSeconds(200));
        locks.heartbeat(beat(first.getLockid(), 0));
        assertThat(check(second)).isEqualTo(LockState.WAITING);

        // The holder goes silent: 300 s later its lock is gone and the waiter has it.
        clock.advance(Duration.ofSeconds(299));
        assertThat(check(second)).isEqualTo(LockState.WAITING);
        clock.advance(Duration.ofSeconds(2));
        assertThat(check(second)).isEqualTo(LockState.ACQUIRED);
        assertThatThrownBy(() -> locks.heartbeat(beat(first.getLockid(), 0)))
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
        locks.heartbeat(beat(t.getLockid(), 0));

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
        ShowLocksRequest byPartition = new ShowLocksRequest();
        byPartition.setPartname("day=1");
        assertThat(locks.show(byPartition).getLocks())
                .extracting(ShowLocksResponseElement::getDbname)
                .containsExactly("other");
    }

    @Test
    void transactionsAndBadRequestsAreClearErrors() throws Exception {
        LockRequest inTxn = new LockRequest(List.of(table(LockType.EXCLUSIVE, "db", "t")), "alice", "host");
        inTxn.setTxnid(7);
        assertThatThrownBy(() -> locks.lock(inTxn))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessageStartingWith("No such transaction txnid:7");
        assertThatThrownBy(() -> locks.heartbeat(beat(0, 7)))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessageStartingWith("No such transaction txnid:7");
        assertThatThrownBy(() -> locks.heartbeat(beat(12345, 0)))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageStartingWith("No such lock lockid:12345");
        assertThatThrownBy(() -> locks.lock(new LockRequest(List.of(), "alice", "host")))
                .isInstanceOf(MetaException.class)
                .hasMessage("A lock request needs at least one component");
        assertThatThrownBy(() -> locks.lock(new LockRequest(
                        List.of(new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, "db")), "alice", "host")))
                .isInstanceOf(MetaException.class)
                .hasMessage("A TABLE-level lock component needs a table name");
        assertThatThrownBy(() -> locks.lock(
                        new LockRequest(List.of(table(LockType.EXCLUSIVE, "@spark#db", "t")), "alice", "host")))
                .isInstanceOf(MetaException.class);
        // Nothing was taken by the failed requests; a heartbeat without ids is Hive's no-op.
        locks.heartbeat(beat(0, 0));
        assertThat(locks.size()).isZero();
    }
}
