package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.util.List;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive's own HiveMetaStoreClient finding its locks after the server restarted on the same tree, as it finds them after
 * a restart of Hive's metastore (which keeps them in its database): checks, heartbeats and unlocks of its lock ids are
 * answered for the locks it holds, a transaction's lock still blocks, ids are never handed out again, and a lock
 * silent past the timeout is gone as Hive's housekeeping would have released it.
 */
class TestHiveClientLocksAcrossRestart {
    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    private final TestHmsLocks.MovingClock clock = new TestHmsLocks.MovingClock();

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withClock(clock, TIMEOUT);

    private static LockRequest request(LockType type, String table, String agent) {
        LockRequest request = new LockRequest(List.of(TestHmsLocks.table(type, "db", table)), "alice", "host");
        request.setAgentInfo(agent);
        return request;
    }

    @Test
    void aClientFindsItsLocksAfterARestart() throws Exception {
        HiveMetaStoreClient before = hms.hiveClient();
        LockResponse held = before.lock(request(LockType.EXCLUSIVE, "t", "holder"));
        LockResponse waiting = before.lock(request(LockType.EXCLUSIVE, "t", "waiter"));
        long txn = before.openTxn("alice");
        LockRequest inTxn = request(LockType.EXCL_WRITE, "u", "txn-writer");
        inTxn.setTxnid(txn);
        LockResponse txnLock = before.lock(inTxn);
        assertThat(List.of(held.getState(), waiting.getState(), txnLock.getState()))
                .containsExactly(LockState.ACQUIRED, LockState.WAITING, LockState.ACQUIRED);

        hms.restart();
        HiveMetaStoreClient after = hms.hiveClient();

        assertThat(after.checkLock(held.getLockid()).getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(after.checkLock(waiting.getLockid()).getState()).isEqualTo(LockState.WAITING);
        after.heartbeat(0, held.getLockid());
        // The transaction's lock still blocks a conflicting one; the new id is past every id from before.
        LockResponse blocked = after.lock(request(LockType.SHARED_WRITE, "u", "late-writer"));
        assertThat(blocked.getState()).isEqualTo(LockState.WAITING);
        assertThat(blocked.getLockid()).isGreaterThan(txnLock.getLockid());
        ShowLocksRequest show = new ShowLocksRequest();
        show.setDbname("db");
        assertThat(after.showLocks(show).getLocks())
                .extracting(ShowLocksResponseElement::getAgentInfo, ShowLocksResponseElement::getState)
                .containsExactly(
                        tuple("holder", LockState.ACQUIRED),
                        tuple("waiter", LockState.WAITING),
                        tuple("txn-writer", LockState.ACQUIRED),
                        tuple("late-writer", LockState.WAITING));

        after.unlock(held.getLockid());
        assertThat(after.checkLock(waiting.getLockid()).getState()).isEqualTo(LockState.ACQUIRED);
        after.commitTxn(txn); // its locks go with it
        assertThat(after.checkLock(blocked.getLockid()).getState()).isEqualTo(LockState.ACQUIRED);
        assertThatThrownBy(() -> after.checkLock(txnLock.getLockid())).isInstanceOf(NoSuchLockException.class);
    }

    @Test
    void aLockSilentPastTheTimeoutAcrossARestartIsGone() throws Exception {
        HiveMetaStoreClient before = hms.hiveClient();
        LockResponse silent = before.lock(request(LockType.EXCLUSIVE, "t", "silent"));

        hms.restart();
        clock.advance(TIMEOUT.plusSeconds(1));
        HiveMetaStoreClient after = hms.hiveClient();

        assertThatThrownBy(() -> after.heartbeat(0, silent.getLockid()))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageStartingWith("No such lock lockid:" + silent.getLockid());
        assertThatThrownBy(() -> after.checkLock(silent.getLockid())).isInstanceOf(NoSuchLockException.class);
        after.unlock(silent.getLockid()); // Hive's unlock of a lock already released is a no-op
        LockResponse next = after.lock(request(LockType.EXCLUSIVE, "t", "next"));
        assertThat(next.getState()).isEqualTo(LockState.ACQUIRED);
        assertThat(next.getLockid()).isGreaterThan(silent.getLockid());
        assertThat(hms.server().locks().size()).isEqualTo(1);
    }
}
