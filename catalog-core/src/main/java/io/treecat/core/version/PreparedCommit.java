package io.treecat.core.version;

import io.treecat.core.history.CommitOrigin;
import io.treecat.core.storage.KvBatch;

/**
 * A write set whose preconditions held, turned into one storage batch for its vid. Apply it with
 * {@link VersionedTree#apply}, then close it.
 */
public final class PreparedCommit implements AutoCloseable {
    private final KvBatch batch;
    private final CommitResult result;
    private final CommitOrigin origin;

    PreparedCommit(KvBatch batch, CommitResult result, CommitOrigin origin) {
        this.batch = batch;
        this.result = result;
        this.origin = origin;
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
    }
}
