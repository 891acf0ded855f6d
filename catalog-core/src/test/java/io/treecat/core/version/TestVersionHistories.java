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

  @TempDir Path directory;

  @Test
  void everyVidReadsLikeTheModel() {
    for (int seed = 0; seed < 12; seed++) {
      runHistory(seed, 60);
    }
  }

  private void runHistory(long seed, int commits) {
    Random random = new Random(seed);
    ReferenceTree model = new ReferenceTree();
    Set<ObjectPath> universe = new HashSet<>();
    universe.add(ObjectPath.ROOT);
    int accepted = 0;
    try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory.resolve("h" + seed)))) {
      for (int i = 0; i < commits; i++) {
        List<WriteOp> ops = new ArrayList<>();
        int size = 1 + random.nextInt(3);
        for (int j = 0; j < size; j++) {
          ops.add(randomOp(random, model, universe));
        }
        WriteSet writes = new WriteSet(ops);
        boolean modelAccepts = model.commit(writes);
        long before = tree.lastVid();
        try {
          CommitResult result = tree.commit(writes);
          assertThat(modelAccepts).as("seed %d commit %d: tree accepted %s", seed, i, ops).isTrue();
          assertThat(result.vid()).isEqualTo(before + 1);
          accepted++;
        } catch (CatalogException e) {
          assertThat(modelAccepts).as("seed %d commit %d: tree refused %s with %s", seed, i, ops, e.getMessage()).isFalse();
          assertThat(tree.lastVid()).isEqualTo(before);
        }
        ops.forEach(op -> universe.add(op.path()));
      }
      assertThat(tree.lastVid()).isEqualTo(model.lastVid());
      // A history where nearly everything fails would test little.
      assertThat(accepted).as("seed %d accepted commits", seed).isGreaterThan(commits / 4);
      // Clones bring in paths under their targets; add what the model knows of.
      for (long vid = 0; vid <= model.lastVid(); vid++) {
        universe.addAll(model.at(vid).keySet());
      }
      for (long vid = 0; vid <= model.lastVid(); vid++) {
        for (ObjectPath path : universe) {
          Optional<CatalogObject> actual = tree.read(path, vid);
          ReferenceTree.Entry expected = path.isRoot() ? new ReferenceTree.Entry(ObjectKind.INNER, new BsonDocument()) : model.at(vid).get(path);
          if (expected == null) {
            assertThat(actual).as("seed %d: %s at %d", seed, path, vid).isEmpty();
          } else {
            assertThat(actual).as("seed %d: %s at %d", seed, path, vid).isPresent();
            assertThat(actual.get().kind()).isEqualTo(expected.kind());
            assertThat(actual.get().value()).as("seed %d: %s at %d", seed, path, vid).isEqualTo(expected.value());
          }
          if (expected != null && expected.kind() == ObjectKind.INNER) {
            List<ObjectPath> children = new ArrayList<>();
            try (ChildCursor cursor = tree.children(path, vid)) {
              while (cursor.advance()) {
                children.add(path.child(cursor.id()));
              }
            }
            assertThat(children).as("seed %d: children of %s at %d", seed, path, vid).isEqualTo(model.children(path, vid));
          }
        }
      }
    }
  }

  private static WriteOp randomOp(Random random, ReferenceTree model, Set<ObjectPath> universe) {
    List<ObjectPath> known = new ArrayList<>(universe);
    known.sort(null);
    ObjectPath base = known.get(random.nextInt(known.size()));
    ObjectPath target = base.depth() < 4 && random.nextInt(3) > 0 ? base.child(IDS[random.nextInt(IDS.length)]) : base;
    if (target.isRoot()) {
      target = ObjectPath.of(IDS[random.nextInt(IDS.length)]);
    }
    ObjectKind kind = random.nextInt(3) == 0 ? ObjectKind.LEAF : ObjectKind.INNER;
    BsonDocument value = new BsonDocument("n", new BsonInt32(random.nextInt(100)));
    switch (random.nextInt(10)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return new WriteOp.Add(target, kind, value);
      case 4:
      case 5:
        return new WriteOp.Update(target, kind, value);
      case 6:
        return new WriteOp.Remove(target);
      case 7:
      case 8:
        return new WriteOp.Merge(target, BsonDocument.parse("{n: {op: '+', val: " + random.nextInt(5) + "}, m: {op: 'max', val: " + random.nextInt(50) + "}}"));
      default:
        long sourceVid = random.nextInt((int) model.lastVid() + 1);
        ObjectPath target2 = ObjectPath.of(IDS[random.nextInt(IDS.length)], "clone" + random.nextInt(3));
        return new WriteOp.Clone(target, target2, sourceVid);
    }
  }
}
