package io.treecat.core.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvOp;
import io.treecat.core.storage.OpsBatch;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TestReplicatedCommit {
    private static ReplicatedCommit sample() {
        OpsBatch batch = new OpsBatch();
        batch.put(KeySpace.LEAF, new byte[] {1, 2}, new byte[] {3});
        batch.delete(KeySpace.INNER_CURRENT, new byte[] {4});
        batch.deleteRange(KeySpace.COMMIT_LOG, new byte[] {5}, new byte[] {6, 7});
        batch.put(KeySpace.META, new byte[0], new byte[0]);
        return new ReplicatedCommit(42, batch.ops());
    }

    @Test
    void anEntryDecodesToTheSameWritesInTheSameOrder() {
        ReplicatedCommit commit = sample();
        ReplicatedCommit decoded = ReplicatedCommit.decode(ByteBuffer.wrap(commit.encode()));
        assertThat(decoded.vid()).isEqualTo(42);
        assertThat(decoded.ops()).hasSize(4);
        for (int i = 0; i < 4; i++) {
            KvOp expected = commit.ops().get(i);
            KvOp actual = decoded.ops().get(i);
            assertThat(actual.kind()).isEqualTo(expected.kind());
            assertThat(actual.space()).isEqualTo(expected.space());
            assertThat(actual.key()).isEqualTo(expected.key());
            assertThat(actual.value()).isEqualTo(expected.value());
        }
    }

    @Test
    void aCorruptEntryIsRefusedNamingWhatAndWhereNeverHalfRead() {
        byte[] bytes = sample().encode();
        assertCorrupt(Arrays.copyOf(bytes, bytes.length - 1), "ends early");
        assertCorrupt(Arrays.copyOf(bytes, bytes.length + 3), "bytes after the last write");
        byte[] header = bytes.clone();
        header[0] = 'X';
        assertCorrupt(header, "unknown header");
        byte[] count = bytes.clone();
        count[10] = 0x7f; // the write count's high byte
        assertCorrupt(count, "impossible write count");
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            byte[] mangled = bytes.clone();
            mangled[random.nextInt(mangled.length)] = (byte) random.nextInt(256);
            try {
                ReplicatedCommit.decode(ByteBuffer.wrap(mangled));
            } catch (CatalogException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_CORRUPTION);
            }
        }
    }

    private static void assertCorrupt(byte[] bytes, String what) {
        assertThatThrownBy(() -> ReplicatedCommit.decode(ByteBuffer.wrap(bytes)))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.STORAGE_CORRUPTION);
                    assertThat(e.context()).containsKey("offset");
                })
                .hasMessageContaining(what);
    }

    @Test
    void opsCarryTheirValuesOnlyWhereTheKindHasOne() {
        assertThatThrownBy(() -> new KvOp(KvOp.Kind.PUT, KeySpace.LEAF, new byte[1], null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KvOp(KvOp.Kind.DELETE, KeySpace.LEAF, new byte[1], new byte[1]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
