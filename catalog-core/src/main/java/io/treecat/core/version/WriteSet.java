package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitOrigin;
import java.util.List;

/**
 * The writes of one commit, applied in order and atomically at one new vid, and where they came
 * from (kept in the commit log; {@link CommitOrigin#NATIVE} unless an adapter says otherwise).
 */
public record WriteSet(List<WriteOp> ops, CommitOrigin origin) {
    public WriteSet {
        requireNonNull(ops, "ops is null");
        requireNonNull(origin, "origin is null");
        ops = ImmutableList.copyOf(ops);
        if (ops.isEmpty()) {
            throw new CatalogException(ErrorCode.INVALID_WRITE_SET, "A write set needs at least one write");
        }
    }

    public WriteSet(List<WriteOp> ops) {
        this(ops, CommitOrigin.NATIVE);
    }

    /** The same writes, recorded as coming from {@code newOrigin}. */
    public WriteSet withOrigin(CommitOrigin newOrigin) {
        return new WriteSet(ops, newOrigin);
    }

    public static WriteSet of(WriteOp... ops) {
        return new WriteSet(List.of(ops));
    }
}
