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
    void aGroupCommitEntryDecodesToItsCommitsInVidOrder() {
        ReplicatedCommit first = sample();
        ReplicatedCommit second = new ReplicatedCommit(43, first.ops().subList(0, 2));
        byte[] entry = ReplicatedCommit.encodeAll(java.util.List.of(first, second));
        var decoded = ReplicatedCommit.decodeAll(ByteBuffer.wrap(entry));
        assertThat(decoded).extracting(ReplicatedCommit::vid).containsExactly(42L, 43L);
        assertThat(decoded.get(1).ops()).hasSize(2);
        // A single commit's encoding is an entry of one commit, so entries of either kind read alike.
        assertThat(ReplicatedCommit.decodeAll(ByteBuffer.wrap(first.encode())))
                .extracting(ReplicatedCommit::vid)
                .containsExactly(42L);
        assertThatThrownBy(() -> ReplicatedCommit.decode(ByteBuffer.wrap(entry)))
                .isInstanceOf(CatalogException.class)
                .hasMessageContaining("2 commits where one was expected");
    }

    @Test
    void theCommitsOfAnEntryMustBeAtConsecutiveVids() {
        ReplicatedCommit first = sample();
        ReplicatedCommit gap = new ReplicatedCommit(44, first.ops());
        assertThatThrownBy(() -> ReplicatedCommit.encodeAll(java.util.List.of(first, gap)))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] spliced = concat(first.encode(), gap.encode());
        assertCorrupt(spliced, "commit of vid 44 after vid 42");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Test
    void aCorruptEntryIsRefusedNamingWhatAndWhereNeverHalfRead() {
        byte[] bytes = sample().encode();
        assertCorrupt(Arrays.copyOf(bytes, bytes.length - 1), "ends early");
        // Trailing bytes are read as the next commit of a group commit, and are none.
        assertCorrupt(Arrays.copyOf(bytes, bytes.length + 3), "unknown header");
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
