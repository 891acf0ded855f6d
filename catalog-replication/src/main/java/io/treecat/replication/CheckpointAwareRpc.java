package io.treecat.replication;

import java.lang.reflect.Field;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.leader.LogAppenderBase;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.util.DataQueue;

/**
 * Ratis's gRPC transport, with a log appender that survives a follower falling behind the leader's
 * purged log.
 *
 * <p>The log is purged up to each snapshot whatever the followers hold ({@code
 * purgeUptoSnapshotIndex}), so a follower that was away, wiped, or deposed with an overwritten tail
 * can need entries the leader no longer has. Ratis 3.2.2 tells such a follower to install a snapshot
 * only if it sees the gap before it reads the entries, and only if the follower's next index is below
 * the log's start. Two cases slip through, and in both the appender's thread dies and its restart is
 * skipped (the dead thread is what {@code isRunning} checks): the follower then never hears from that
 * leader again, and with one more node down the group has no quorum.
 *
 * <ul>
 *   <li>The next index drops below the log's start between the check and the read (an append reply
 *       rewinds it, or a purge runs): the read fails with "Log entry not found".
 *   <li>The next index is the log's first one, but the entry before it, whose term the request must
 *       carry, was purged too and is not the newest snapshot either (the log is purged a little behind
 *       each snapshot): "Previous TermIndex not found".
 * </ul>
 *
 * <p>Here the read is skipped instead, with the next index set just below the log's start in the second
 * case; the appender's next round sees the gap and notifies the follower, which installs a checkpoint
 * ({@link CheckpointShipping}).
 *
 * <p>Ratis picks a user-defined {@link RpcType} by class name, hence the public no-argument
 * constructor.
 */
public final class CheckpointAwareRpc implements RpcType {

    @Override
    public String name() {
        return CheckpointAwareRpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new GrpcFactory(parameters) {
            @Override
            public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
                return new Appender(server, state, follower);
            }
        };
    }

    static final class Appender extends GrpcLogAppender {

        Appender(RaftServer.Division server, LeaderState leaderState, FollowerInfo follower) {
            super(server, leaderState, follower);
        }

        @Override
        public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
                throws RaftLogIOException {
            // Called under the appender's lock, so the follower's next index holds still; only a purge
            // can move the log's start meanwhile.
            boolean readsEntries = !heartbeat && getHeartbeatWaitTimeMs() > 0;
            if (readsEntries && (entriesPurged() || previousPurged())) {
                return null;
            }
            try {
                return super.newAppendEntriesRequest(callId, heartbeat);
            } catch (RaftLogIOException e) {
                if (!entriesPurged()) {
                    throw e;
                }
                // A purge ran while the entries were read: the ones read so far stay in the appender's
                // buffer, which the next request asserts empty.
                clearBuffer(e);
                return null;
            }
        }

        private boolean entriesPurged() {
            return getFollower().getNextIndex() < getRaftLog().getStartIndex();
        }

        /**
         * Whether the follower's next entry is the log's first and the one before it is known neither from
         * the log nor as the newest snapshot; if so, moves the next index below the log's start so that the
         * next round tells the follower to install a checkpoint.
         */
        private boolean previousPurged() {
            FollowerInfo follower = getFollower();
            long next = follower.getNextIndex();
            long start = getRaftLog().getStartIndex();
            if (next != start
                    || next <= RaftLog.LEAST_VALID_LOG_INDEX
                    || getRaftLog().getTermIndex(next - 1) != null) {
                return false;
            }
            SnapshotInfo snapshot = getServer().getStateMachine().getLatestSnapshot();
            if (snapshot != null && snapshot.getIndex() == next - 1) {
                return false;
            }
            follower.decreaseNextIndex(start - 1);
            return true;
        }

        private void clearBuffer(RaftLogIOException cause) throws RaftLogIOException {
            try {
                Field buffer = LogAppenderBase.class.getDeclaredField("buffer");
                buffer.setAccessible(true);
                ((DataQueue<?>) buffer.get(this)).clear();
            } catch (ReflectiveOperationException | RuntimeException e) {
                cause.addSuppressed(e);
                throw cause;
            }
        }
    }
}
