package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestVersionedTree {
    @TempDir
    Path directory;

    private VersionedTree tree;

    @BeforeEach
    void open() {
        tree = VersionedTree.open(RocksKvStore.open(directory));
    }

    @AfterEach
    void close() {
        tree.close();
    }

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }

    private static ObjectPath path(String text) {
        return ObjectPath.parse(text);
    }

    private long add(String path, ObjectKind kind, String json) {
        return tree.commit(WriteSet.of(new WriteOp.Add(path(path), kind, doc(json))))
                .vid();
    }

    private List<String> childIds(String parent, long vid) {
        List<String> ids = new ArrayList<>();
        try (ChildCursor cursor = tree.children(path(parent), vid)) {
            while (cursor.advance()) {
                ids.add(cursor.id() + (cursor.kind() == ObjectKind.LEAF ? "(leaf)" : ""));
            }
        }
        return ids;
    }

    @Test
    void everyVersionOfAnInnerObjectStaysReadable() {
        long v1 = add("/retail", ObjectKind.INNER, "{obj_type: 'database', owner: 'ann'}");
        long v2 = tree.commit(WriteSet.of(new WriteOp.Update(
                        path("/retail"), ObjectKind.INNER, doc("{obj_type: 'database', owner: 'bob'}"))))
                .vid();
        long v3 = tree.commit(WriteSet.of(new WriteOp.Remove(path("/retail")))).vid();
        long v4 = add("/retail", ObjectKind.INNER, "{obj_type: 'database', owner: 'cy'}");

        assertThat(tree.read(path("/retail"), 0)).isEmpty();
        assertThat(tree.read(path("/retail"), v1)
                        .orElseThrow()
                        .value()
                        .getString("owner")
                        .getValue())
                .isEqualTo("ann");
        assertThat(tree.read(path("/retail"), v2)
                        .orElseThrow()
                        .value()
                        .getString("owner")
                        .getValue())
                .isEqualTo("bob");
        assertThat(tree.read(path("/retail"), v3)).isEmpty();
        assertThat(tree.read(path("/retail"), v4)
                        .orElseThrow()
                        .value()
                        .getString("owner")
                        .getValue())
                .isEqualTo("cy");
        assertThat(tree.read(path("/retail"), v2).orElseThrow().version()).isEqualTo(v2);
    }

    @Test
    void leavesAreVisibleWithinTheirVidRange() {
        add("/t", ObjectKind.INNER, "{}");
        long added = add("/t/f1", ObjectKind.LEAF, "{size: 10}");
        long replaced = tree.commit(WriteSet.of(new WriteOp.Update(path("/t/f1"), ObjectKind.LEAF, doc("{size: 20}"))))
                .vid();
        long removed =
                tree.commit(WriteSet.of(new WriteOp.Remove(path("/t/f1")))).vid();

        assertThat(tree.read(path("/t/f1"), added - 1)).isEmpty();
        assertThat(tree.read(path("/t/f1"), added).orElseThrow().value()).isEqualTo(doc("{size: 10}"));
        assertThat(tree.read(path("/t/f1"), replaced).orElseThrow().value()).isEqualTo(doc("{size: 20}"));
        assertThat(tree.read(path("/t/f1"), removed)).isEmpty();
        assertThat(childIds("/t", added)).containsExactly("f1(leaf)");
        assertThat(childIds("/t", removed)).isEmpty();
    }

    @Test
    void childrenComeInIdOrderAcrossInnerAndLeafObjects() {
        tree.commit(WriteSet.of(
                new WriteOp.Add(path("/t"), ObjectKind.INNER, doc("{}")),
                new WriteOp.Add(path("/t/c"), ObjectKind.LEAF, doc("{}")),
                new WriteOp.Add(path("/t/a"), ObjectKind.INNER, doc("{}")),
                new WriteOp.Add(path("/t/b"), ObjectKind.LEAF, doc("{}")),
                new WriteOp.Add(path("/t/a/x"), ObjectKind.LEAF, doc("{}"))));
        assertThat(childIds("/t", tree.lastVid())).containsExactly("a", "b(leaf)", "c(leaf)");
        assertThat(childIds("/t/a", tree.lastVid())).containsExactly("x(leaf)");
    }

    @Test
    void aChildScanReadsParentAfterParentThroughSharedIteratorsWithinEachOnesRanges() {
        long vid = tree.commit(WriteSet.of(
                        new WriteOp.Add(path("/a"), ObjectKind.INNER, doc("{}")),
                        new WriteOp.Add(path("/a/x"), ObjectKind.LEAF, doc("{n: 1}")),
                        new WriteOp.Add(path("/a/y"), ObjectKind.INNER, doc("{}")),
                        new WriteOp.Add(path("/a/z"), ObjectKind.LEAF, doc("{}")),
                        new WriteOp.Add(path("/ab"), ObjectKind.INNER, doc("{}")),
                        new WriteOp.Add(path("/ab/q"), ObjectKind.LEAF, doc("{}")),
                        new WriteOp.Add(path("/b"), ObjectKind.INNER, doc("{}")),
                        new WriteOp.Add(path("/b/z"), ObjectKind.LEAF, doc("{}")),
                        new WriteOp.Add(path("/c"), ObjectKind.INNER, doc("{}"))))
                .vid();
        List<byte[][]> all = List.<byte[][]>of(new byte[][] {null, null});
        List<byte[][]> xToZ = List.<byte[][]>of(new byte[][] {IdOrder.encode("x"), IdOrder.encode("z")});

        try (ChildScan scan = tree.childScan(ChildKinds.BOTH)) {
            assertThat(ids(scan.children(path("/a"), vid, all))).containsExactly("x(leaf)", "y", "z(leaf)");
            // The shared iterators stop at each parent's last child, not at the next parent's first.
            assertThat(ids(scan.children(path("/a"), vid, xToZ))).containsExactly("x(leaf)", "y");
            assertThat(ids(scan.children(path("/c"), vid, all))).isEmpty();
            assertThat(ids(scan.children(path("/ab"), vid, all))).containsExactly("q(leaf)");
            assertThat(ids(scan.children(path("/b"), vid, all))).containsExactly("z(leaf)");

            long later = add("/b/w", ObjectKind.LEAF, "{}");
            assertThat(ids(scan.children(path("/b"), vid, all))).containsExactly("z(leaf)");
            // A newer vid reopens the iterators: they were opened before its commit.
            assertThat(ids(scan.children(path("/b"), later, all))).containsExactly("w(leaf)", "z(leaf)");
            ChildCursor x = scan.children(path("/a"), later, xToZ);
            assertThat(x.advance()).isTrue();
            assertThat(x.value().getInt32("n").getValue()).isEqualTo(1);
            x.close();
        }
    }

    private static List<String> ids(ChildCursor cursor) {
        List<String> ids = new ArrayList<>();
        try (cursor) {
            while (cursor.advance()) {
                ids.add(cursor.id() + (cursor.kind() == ObjectKind.LEAF ? "(leaf)" : ""));
            }
        }
        return ids;
    }

    @Test
    void aWriteSetIsAtomic() {
        add("/db", ObjectKind.INNER, "{}");
        long before = tree.lastVid();
        assertThatThrownBy(() -> tree.commit(WriteSet.of(
                        new WriteOp.Add(path("/db/t1"), ObjectKind.INNER, doc("{}")),
                        new WriteOp.Add(path("/nope/t2"), ObjectKind.INNER, doc("{}")))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Parent does not exist: /nope")
                .satisfies(e -> assertThat(((CatalogException) e).context()).containsEntry("writeIndex", "1"));
        assertThat(tree.lastVid()).isEqualTo(before);
        assertThat(tree.read(path("/db/t1"), tree.lastVid())).isEmpty();
    }

    @Test
    void preconditionsFailClearly() {
        add("/db", ObjectKind.INNER, "{}");
        add("/db/f", ObjectKind.LEAF, "{}");
        assertThatThrownBy(() -> add("/db", ObjectKind.INNER, "{}"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Object already exists: /db")
                .extracting(e -> ((CatalogException) e).code())
                .isEqualTo(ErrorCode.OBJECT_ALREADY_EXISTS);
        assertThatThrownBy(
                        () -> tree.commit(WriteSet.of(new WriteOp.Merge(path("/db/x"), doc("{n: {op: '+', val: 1}}")))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Merge needs an existing object: /db/x");
        assertThatThrownBy(
                        () -> tree.commit(WriteSet.of(new WriteOp.Merge(path("/db/f"), doc("{n: {op: '+', val: 1}}")))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Leaves are immutable and cannot be merged: /db/f");
        assertThatThrownBy(() -> add("/db/f/child", ObjectKind.LEAF, "{}"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("A leaf cannot have children: /db/f");
        assertThatThrownBy(() -> tree.commit(WriteSet.of(new WriteOp.Remove(path("/db/missing")))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Object not found: /db/missing");
        assertThatThrownBy(
                        () -> tree.commit(WriteSet.of(new WriteOp.Update(path("/db/f"), ObjectKind.INNER, doc("{}")))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Update cannot change an object's kind: /db/f is LEAF");
    }

    @Test
    void removeTakesTheWholeSubtree() {
        tree.commit(WriteSet.of(
                new WriteOp.Add(path("/db"), ObjectKind.INNER, doc("{}")),
                new WriteOp.Add(path("/db/t"), ObjectKind.INNER, doc("{}")),
                new WriteOp.Add(path("/db/t/p"), ObjectKind.INNER, doc("{}")),
                new WriteOp.Add(path("/db/t/p/f"), ObjectKind.LEAF, doc("{}"))));
        long before = tree.lastVid();
        tree.commit(WriteSet.of(new WriteOp.Remove(path("/db/t"))));
        for (String gone : List.of("/db/t", "/db/t/p", "/db/t/p/f")) {
            assertThat(tree.read(path(gone), tree.lastVid())).as(gone).isEmpty();
            assertThat(tree.read(path(gone), before)).as(gone).isPresent();
        }
        // Re-adding the table does not bring back its old children.
        add("/db/t", ObjectKind.INNER, "{}");
        assertThat(childIds("/db/t", tree.lastVid())).isEmpty();
    }

    @Test
    void mergeAppliesAtCommitTime() {
        add("/t", ObjectKind.INNER, "{stats: {files: 1, min: 5}}");
        tree.commit(WriteSet.of(
                new WriteOp.Merge(path("/t"), doc("{stats: {files: {op: '+', val: 2}, min: {op: 'min', val: 3}}}")),
                new WriteOp.Merge(path("/t"), doc("{stats: {files: {op: '+', val: 4}}}"))));
        assertThat(tree.read(path("/t"), tree.lastVid()).orElseThrow().value())
                .isEqualTo(doc("{stats: {files: 7, min: 3}}"));
    }

    @Test
    void snapshotsNameVersions() {
        long v1 = add("/a", ObjectKind.INNER, "{n: 1}");
        tree.createSnapshot("nightly", v1);
        add("/b", ObjectKind.INNER, "{}");
        assertThat(tree.snapshotVid("nightly")).isEqualTo(v1);
        assertThat(tree.listSnapshots()).containsExactly(new NamedSnapshot("nightly", v1));
        assertThatThrownBy(() -> tree.createSnapshot("nightly", v1))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Snapshot already exists: nightly");
        assertThatThrownBy(() -> tree.createSnapshot("future", 99))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Version 99 is not committed (the newest is 2)");
        tree.dropSnapshot("nightly");
        assertThat(tree.listSnapshots()).isEmpty();
        assertThatThrownBy(() -> tree.snapshotVid("nightly"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No snapshot named nightly");
    }

    @Test
    void cloneCopiesInnerObjectsAndSharesLeaves() {
        tree.commit(WriteSet.of(
                new WriteOp.Add(path("/prod"), ObjectKind.INNER, doc("{env: 'prod'}")),
                new WriteOp.Add(path("/prod/t"), ObjectKind.INNER, doc("{v: 1}")),
                new WriteOp.Add(path("/prod/t/f1"), ObjectKind.LEAF, doc("{size: 1}"))));
        long source = tree.lastVid();
        tree.commit(WriteSet.of(new WriteOp.Add(path("/prod/t/f2"), ObjectKind.LEAF, doc("{size: 2}"))));
        tree.commit(WriteSet.of(new WriteOp.Clone(path("/prod"), path("/dev"), source)));

        long now = tree.lastVid();
        assertThat(tree.read(path("/dev"), now).orElseThrow().value()).isEqualTo(doc("{env: 'prod'}"));
        assertThat(childIds("/dev/t", now)).containsExactly("f1(leaf)");
        assertThat(tree.read(path("/dev/t/f1"), now).orElseThrow().value()).isEqualTo(doc("{size: 1}"));

        // The clone is independent: changing it leaves the source alone, and removing the source's
        // leaf leaves the shared copy readable through the clone.
        tree.commit(WriteSet.of(new WriteOp.Update(path("/dev/t"), ObjectKind.INNER, doc("{v: 2}"))));
        tree.commit(WriteSet.of(new WriteOp.Remove(path("/prod/t/f1"))));
        assertThat(tree.read(path("/prod/t"), tree.lastVid()).orElseThrow().value())
                .isEqualTo(doc("{v: 1}"));
        assertThat(tree.read(path("/dev/t/f1"), tree.lastVid()).orElseThrow().value())
                .isEqualTo(doc("{size: 1}"));

        // A clone of a clone still points at the primary copy.
        tree.commit(WriteSet.of(new WriteOp.Clone(path("/dev"), path("/qa"), tree.lastVid())));
        assertThat(tree.read(path("/qa/t/f1"), tree.lastVid()).orElseThrow().value())
                .isEqualTo(doc("{size: 1}"));
    }

    @Test
    void aCloneOverARemovedSubtreeInOneWriteSetLooksUpTheNewChildrenSafely() {
        // Found by TestRetentionProperties: the leaf lookups made while writing the batch (for cloned
        // children the removed subtree did not have) used the lookup iterator after it was closed, a
        // native use-after-free that only -ea turned into an error.
        tree.commit(WriteSet.of(
                new WriteOp.Add(path("/a"), ObjectKind.INNER, doc("{n: 'a'}")),
                new WriteOp.Add(path("/a/x"), ObjectKind.LEAF, doc("{n: 'ax'}")),
                new WriteOp.Add(path("/b"), ObjectKind.INNER, doc("{n: 'b'}")),
                new WriteOp.Add(path("/b/y"), ObjectKind.LEAF, doc("{n: 'by'}"))));
        long source = tree.lastVid();

        tree.commit(WriteSet.of(
                new WriteOp.Add(path("/c"), ObjectKind.LEAF, doc("{n: 'c'}")),
                new WriteOp.Remove(path("/a")),
                new WriteOp.Clone(path("/b"), path("/a"), source)));

        long now = tree.lastVid();
        assertThat(childIds("/a", now)).containsExactly("y(leaf)");
        assertThat(tree.read(path("/a"), now).orElseThrow().value()).isEqualTo(doc("{n: 'b'}"));
        assertThat(tree.read(path("/a/y"), now).orElseThrow().value()).isEqualTo(doc("{n: 'by'}"));
        assertThat(tree.read(path("/a/x"), now)).isEmpty();
        assertThat(tree.read(path("/c"), now)).isPresent();
    }

    @Test
    void reopeningGivesBackTheSameStateAndVidCounter() {
        add("/a", ObjectKind.INNER, "{n: 1}");
        add("/a/f", ObjectKind.LEAF, "{n: 2}");
        tree.createSnapshot("s", 1);
        long last = tree.lastVid();
        tree.close();

        tree = VersionedTree.open(RocksKvStore.open(directory));
        assertThat(tree.lastVid()).isEqualTo(last);
        assertThat(tree.read(path("/a/f"), last).orElseThrow().value()).isEqualTo(doc("{n: 2}"));
        assertThat(tree.snapshotVid("s")).isEqualTo(1);
        assertThat(add("/b", ObjectKind.INNER, "{}")).isEqualTo(last + 1);
    }

    @Test
    void oversizedValuesAreRejected() {
        BsonDocument big = new BsonDocument("blob", new org.bson.BsonBinary(new byte[16 * 1024 * 1024]));
        assertThatThrownBy(() -> tree.commit(WriteSet.of(new WriteOp.Add(path("/big"), ObjectKind.INNER, big))))
                .isInstanceOf(CatalogException.class)
                .extracting(e -> ((CatalogException) e).code())
                .isIn(ErrorCode.VALUE_TOO_LARGE, ErrorCode.INVALID_VALUE);
        assertThat(tree.lastVid()).isZero();
    }

    @Test
    void readsPastTheNewestVersionFail() {
        assertThatThrownBy(() -> tree.read(path("/a"), 5))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Version 5 is not committed (the newest is 0)");
        CatalogObject root = tree.read(ObjectPath.ROOT, 0).orElseThrow();
        assertThat(root.kind()).isEqualTo(ObjectKind.INNER);
    }

    @Test
    void aGroupCommitPreparesEachCommitOverTheOnesBeforeItAndInstallsThemAtOnce() {
        long base = add("/db", ObjectKind.INNER, "{}");
        tree.startReplicating();
        VersionedTree.GroupCommit entry = tree.startGroupCommit();
        List<WriteSet> commits = List.of(
                WriteSet.of(
                        new WriteOp.Add(path("/db/t"), ObjectKind.INNER, doc("{v: 1}")),
                        new WriteOp.Add(path("/db/t/f"), ObjectKind.LEAF, doc("{size: 1}"))),
                // Each needs what the ones before it staged: the parent, the leaf, the children to remove.
                WriteSet.of(
                        new WriteOp.Update(path("/db/t/f"), ObjectKind.LEAF, doc("{size: 2}")),
                        new WriteOp.Add(path("/db/t/g"), ObjectKind.LEAF, doc("{size: 3}"))),
                WriteSet.of(new WriteOp.Remove(path("/db/t"))),
                WriteSet.of(new WriteOp.Add(path("/db/t"), ObjectKind.INNER, doc("{v: 2}"))));
        for (WriteSet writes : commits) {
            try (PreparedCommit prepared = entry.prepare(writes)) {
                entry.stage(prepared);
            }
        }
        assertThatThrownBy(
                        () -> entry.prepare(WriteSet.of(new WriteOp.Add(path("/db/t"), ObjectKind.INNER, doc("{}")))))
                .isInstanceOf(CatalogException.class)
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.OBJECT_ALREADY_EXISTS));
        // Nothing is in the store before the group agreed.
        assertThat(tree.appliedVid()).isEqualTo(base);
        assertThat(tree.read(path("/db/t"), base)).isEmpty();

        tree.applyReplicated(entry.commits(), batch -> {});
        tree.publish(base + 4);
        assertThat(childIds("/db/t", base + 1)).containsExactly("f(leaf)");
        assertThat(tree.read(path("/db/t/f"), base + 2)
                        .orElseThrow()
                        .value()
                        .getInt32("size")
                        .getValue())
                .isEqualTo(2);
        assertThat(childIds("/db/t", base + 2)).containsExactly("f(leaf)", "g(leaf)");
        assertThat(tree.read(path("/db/t"), base + 3)).isEmpty();
        assertThat(tree.read(path("/db/t/g"), base + 3)).isEmpty();
        assertThat(tree.read(path("/db/t"), base + 4)
                        .orElseThrow()
                        .value()
                        .getInt32("v")
                        .getValue())
                .isEqualTo(2);
        assertThat(childIds("/db/t", base + 4)).isEmpty();
        assertThat(tree.log().find(base + 4)).isPresent();
    }
}
