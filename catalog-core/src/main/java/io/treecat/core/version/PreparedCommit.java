package io.treecat.core.version;

import io.treecat.core.history.CommitOrigin;
import io.treecat.core.storage.KvBatch;
import java.util.List;

/**
 * A write set whose preconditions held, turned into one storage batch for its vid. Apply it with
 * {@link VersionedTree#apply}, then close it.
 */
public final class PreparedCommit implements AutoCloseable {
    private final KvBatch batch;
    private final CommitResult result;
    private final CommitOrigin origin;
    /** Reads the commit holds until it is written (a clone's source vid); released on close. */
    private final List<ReadPins.Pin> pins;

    PreparedCommit(KvBatch batch, CommitResult result, CommitOrigin origin, List<ReadPins.Pin> pins) {
        this.batch = batch;
        this.result = result;
        this.origin = origin;
        this.pins = List.copyOf(pins);
    }

    CommitOrigin origin() {
        return origin;
    }

    public long vid() {
        return result.vid();
    }

    /** The changes this commit makes, with before- and after-images. */
    public CommitResult result() {
        return result;
    }

    KvBatch batch() {
        return batch;
    }

    @Override
    public void close() {
        batch.close();
        pins.forEach(ReadPins.Pin::close);
    }
}
