package io.treecat.core.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestGroupOperation {
    @Test
    void everyKindReadsBackAsWritten() {
        for (GroupOperation operation : List.of(
                GroupOperation.createSnapshot("nightly/2026-11-29 é", 42),
                GroupOperation.dropSnapshot("nightly"),
                GroupOperation.agreeHorizon(Long.MAX_VALUE))) {
            ByteBuffer bytes = ByteBuffer.wrap(operation.encode());
            assertThat(GroupOperation.isOperation(bytes)).isTrue();
            assertThat(GroupOperation.decode(bytes)).isEqualTo(operation);
        }
    }

    /** The state machine tells an operation from a commit entry by its first byte. */
    @Test
    void aCommitEntryIsNotAnOperation() {
        byte[] commit = new ReplicatedCommit(7, List.of()).encode();
        assertThat(GroupOperation.isOperation(ByteBuffer.wrap(commit))).isFalse();
        assertThat(GroupOperation.isOperation(ByteBuffer.allocate(0))).isFalse();
    }

    @Test
    void aCorruptEntryIsRefusedSayingWhere() {
        byte[] good = GroupOperation.createSnapshot("s", 1).encode();
        byte[] unknownKind = good.clone();
        unknownKind[2] = 9;
        byte[] truncated = Arrays.copyOf(good, good.length - 1);
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        for (byte[] corrupt : List.of(unknownKind, truncated, trailing, new byte[] {'G', 2})) {
            assertThatThrownBy(() -> GroupOperation.decode(ByteBuffer.wrap(corrupt)))
                    .isInstanceOfSatisfying(CatalogException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_CORRUPTION);
                        assertThat(e.context()).containsKey("offset");
                    });
        }
    }
}
