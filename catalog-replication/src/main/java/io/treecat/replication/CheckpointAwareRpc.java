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
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.util.DataQueue;

/**
 * Ratis's gRPC transport, with a log appender that survives a follower falling behind the leader's
 * purged log.
 *
 * <p>The log is purged up to each snapshot whatever the followers hold ({@code
 * purgeUptoSnapshotIndex}), so a follower that was away, wiped, or deposed with an overwritten tail
 * can need entries the leader no longer has. Ratis 3.2.2 tells such a follower to install a snapshot
 * only if it sees the gap before it reads the entries; when the follower's next index drops below the
 * log's start between that check and the read (an append reply rewinds it, or a purge runs), the read
 * fails with "Log entry not found", the appender's thread dies, and its restart is skipped because the
 * dead thread is what {@code isRunning} checks. The follower then never hears from that leader again,
 * and with one more node down the group has no quorum. Here the read is skipped instead when the
 * entries are gone; the appender's next round sees the gap and notifies the follower, which installs a
 * checkpoint ({@link CheckpointShipping}).
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
            if (readsEntries && entriesPurged()) {
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
