package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.error.CatalogException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random histories of write sets against a reference model: after every history, reading any path
 * and listing any parent's children at every vid must equal the model.
 */
class TestVersionHistories {
    private static final String[] IDS = {"a", "b", "c", "a/b", "\u0000", "x\u0001", "\uD83D\uDE00"};

    @TempDir
    Path directory;

    @Test
    void everyVidReadsLikeTheModel() {
        int accepted = 0;
        for (int seed = 0; seed < 12; seed++) {
            accepted += runHistory(seed, 80);
        }
        // Histories where nearly everything is refused would test little.
        assertThat(accepted).isGreaterThan(12 * 80 / 3);
    }

    private int runHistory(long seed, int commits) {
        Random random = new Random(seed);
        ReferenceTree model = new ReferenceTree();
        Set<ObjectPath> universe = new HashSet<>();
        universe.add(ObjectPath.ROOT);
        int accepted = 0;
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory.resolve("h" + seed)))) {
            for (int i = 0; i < commits; i++) {
                List<WriteOp> ops = new ArrayList<>();
                int size = 1 + random.nextInt(2);
                for (int j = 0; j < size; j++) {
                    ops.add(randomOp(random, model, universe));
                }
                WriteSet writes = new WriteSet(ops);
                boolean modelAccepts = model.commit(writes);
                long before = tree.lastVid();
                try {
                    CommitResult result = tree.commit(writes);
                    assertThat(modelAccepts)
                            .as("seed %d commit %d: tree accepted %s", seed, i, ops)
                            .isTrue();
                    assertThat(result.vid()).isEqualTo(before + 1);
                    accepted++;
                } catch (CatalogException e) {
                    assertThat(modelAccepts)
                            .as("seed %d commit %d: tree refused %s with %s", seed, i, ops, e.getMessage())
                            .isFalse();
                    assertThat(tree.lastVid()).isEqualTo(before);
                    if (System.getenv("DEBUG_HISTORY") != null) {
                        System.err.println("seed " + seed + " refused " + ops + ": " + e.getMessage());
                    }
                }
                ops.forEach(op -> universe.add(op.path()));
            }
            assertThat(tree.lastVid()).isEqualTo(model.lastVid());
            // Clones bring in paths under their targets; add what the model knows of.
            for (long vid = 0; vid <= model.lastVid(); vid++) {
                universe.addAll(model.at(vid).keySet());
            }
            for (long vid = 0; vid <= model.lastVid(); vid++) {
                for (ObjectPath path : universe) {
                    Optional<CatalogObject> actual = tree.read(path, vid);
                    ReferenceTree.Entry expected = path.isRoot()
                            ? new ReferenceTree.Entry(ObjectKind.INNER, new BsonDocument())
                            : model.at(vid).get(path);
                    if (expected == null) {
                        assertThat(actual)
                                .as("seed %d: %s at %d", seed, path, vid)
                                .isEmpty();
                    } else {
                        assertThat(actual)
                                .as("seed %d: %s at %d", seed, path, vid)
                                .isPresent();
                        assertThat(actual.get().kind()).isEqualTo(expected.kind());
                        assertThat(actual.get().value())
                                .as("seed %d: %s at %d", seed, path, vid)
                                .isEqualTo(expected.value());
                    }
                    if (expected != null && expected.kind() == ObjectKind.INNER) {
                        List<ObjectPath> children = new ArrayList<>();
                        try (ChildCursor cursor = tree.children(path, vid)) {
                            while (cursor.advance()) {
                                children.add(path.child(cursor.id()));
                            }
                        }
                        assertThat(children)
                                .as("seed %d: children of %s at %d", seed, path, vid)
                                .isEqualTo(model.children(path, vid));
                    }
                }
            }
        }
        return accepted;
    }

    /**
     * Mostly writes that should pass their preconditions against the newest state (so histories grow),
     * and sometimes arbitrary ones, whose refusal the model must predict too.
     */
    static WriteOp randomOp(Random random, ReferenceTree model, Set<ObjectPath> universe) {
        java.util.Map<ObjectPath, ReferenceTree.Entry> now = model.at(model.lastVid());
        List<ObjectPath> existing = new ArrayList<>(now.keySet());
        existing.sort(null);
        List<ObjectPath> inner = new ArrayList<>(List.of(ObjectPath.ROOT));
        existing.stream()
                .filter(p -> now.get(p).kind() == ObjectKind.INNER && p.depth() < 4)
                .forEach(inner::add);
        boolean arbitrary = random.nextInt(5) == 0 || existing.isEmpty();
        List<ObjectPath> pool = new ArrayList<>(universe);
        pool.sort(null);
        ObjectPath anyPath = pool.get(random.nextInt(pool.size()));
        ObjectPath someExisting = arbitrary ? anyPath : existing.get(random.nextInt(existing.size()));
        ObjectPath newChild =
                (arbitrary ? anyPath : inner.get(random.nextInt(inner.size()))).child(IDS[random.nextInt(IDS.length)]);
        ObjectKind kind = random.nextInt(3) == 0 ? ObjectKind.LEAF : ObjectKind.INNER;
        BsonDocument value = new BsonDocument("n", new BsonInt32(random.nextInt(100)));
        switch (random.nextInt(10)) {
            case 0:
            case 1:
            case 2:
            case 3:
                return new WriteOp.Add(newChild, kind, value);
            case 4:
            case 5:
                return random.nextBoolean() || someExisting.isRoot()
                        ? new WriteOp.Update(newChild, kind, value)
                        : new WriteOp.Update(
                                someExisting,
                                now.containsKey(someExisting)
                                        ? now.get(someExisting).kind()
                                        : kind,
                                value);
            case 6:
                return new WriteOp.Remove(someExisting.isRoot() ? newChild : someExisting);
            case 7:
            case 8:
                return new WriteOp.Merge(
                        someExisting.isRoot() ? newChild : someExisting,
                        BsonDocument.parse("{n: {op: '+', val: " + random.nextInt(5) + "}, m: {op: 'max', val: "
                                + random.nextInt(50) + "}}"));
            default:
                long sourceVid = random.nextInt((int) model.lastVid() + 1);
                List<ObjectPath> then = new ArrayList<>(model.at(sourceVid).keySet());
                then.sort(null);
                ObjectPath source = then.isEmpty() || arbitrary ? anyPath : then.get(random.nextInt(then.size()));
                ObjectPath target = inner.get(random.nextInt(inner.size())).child("clone" + random.nextInt(3));
                return new WriteOp.Clone(source.isRoot() ? newChild : source, target, sourceVid);
        }
    }
}
