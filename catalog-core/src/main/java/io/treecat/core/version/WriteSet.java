package io.treecat.core.version;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.List;

/** The writes of one commit, applied in order and atomically at one new vid. */
public record WriteSet(List<WriteOp> ops) {
    public WriteSet {
        requireNonNull(ops, "ops is null");
        ops = ImmutableList.copyOf(ops);
        if (ops.isEmpty()) {
            throw new CatalogException(ErrorCode.INVALID_WRITE_SET, "A write set needs at least one write");
        }
    }

    public static WriteSet of(WriteOp... ops) {
        return new WriteSet(List.of(ops));
    }
}
