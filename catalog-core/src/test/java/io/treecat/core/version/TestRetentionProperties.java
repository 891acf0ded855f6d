package io.treecat.core.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import org.bson.BsonDocument;

/**
 * Random histories of commits (adds, updates, merges, removes, clones from any vid), named snapshots
 * made and dropped, reads pinned and released, and garbage collection passes with random retention,
 * all interleaved. After every pass, and after a restart at the end:
 *
 * <ul>
 *   <li>every vid at or above the horizon reads exactly as it did before the pass, and as the
 *       reference model says (point reads of every path ever seen, and the children of every inner
 *       object);
 *   <li>every vid below it is refused with {@code VERSION_EXPIRED};
 *   <li>the horizon never moved back, nor past a snapshot or a pinned read.
 * </ul>
 *
 * Tries are bounded so the property runs in well under a minute.
 */
class TestRetentionProperties {
    @Property(tries = 60, shrinking = ShrinkingMode.OFF)
    void retainedVersionsReadAsBeforeCollection(
            @ForAll long seed,
            @ForAll @IntRange(min = 20, max = 80) int steps,
            @ForAll @IntRange(min = 1, max = 6) int retainVersions)
            throws IOException {
        Path directory = Files.createTempDirectory("treecat-gc-property");
        try {
            long reclaimed = run(directory, new Random(seed), steps, retainVersions);
            // Most histories must have something collected, or the property would test little.
            Statistics.label("collected").collect(reclaimed > 0);
            Statistics.label("collected")
                    .coverage(coverage -> coverage.check(true).percentage(percent -> percent > 40));
        } finally {
            deleteTree(directory);
        }
    }

    /** Runs one history; returns the keys the collector deleted. */
    private static long run(Path directory, Random random, int steps, int retainVersions) {
        ReferenceTree model = new ReferenceTree();
        Set<ObjectPath> universe = new HashSet<>();
        universe.add(ObjectPath.ROOT);
        Map<String, Long> snapshots = new LinkedHashMap<>();
        List<ReadPins.Pin> pins = new ArrayList<>();
        RetentionConfig config =
                RetentionConfig.defaults().withRetention(Optional.empty(), OptionalLong.of(retainVersions));
        long finalHorizon;
        long reclaimed;
        Map<Long, Observed> retained;
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory))) {
            GarbageCollector collector = new GarbageCollector(tree, config, Clock.systemUTC());
            for (int step = 0; step < steps; step++) {
                int action = random.nextInt(100);
                long horizon = tree.horizon();
                long last = tree.lastVid();
                if (action < 65) {
                    commit(tree, model, universe, random);
                } else if (action < 69) {
                    long vid = random.nextLong(last + 1);
                    String name = "s" + step;
                    if (vid < horizon) {
                        assertExpired(() -> tree.createSnapshot(name, vid));
                    } else {
                        tree.createSnapshot(name, vid);
                        snapshots.put(name, vid);
                    }
                } else if (action < 75 && !snapshots.isEmpty()) {
                    String name = snapshots.keySet().iterator().next();
                    tree.dropSnapshot(name);
                    snapshots.remove(name);
                } else if (action < 79) {
                    long vid = horizon + random.nextLong(last - horizon + 1);
                    pins.add(tree.pin(vid));
                } else if (action < 87 && !pins.isEmpty()) {
                    pins.remove(random.nextInt(pins.size())).close();
                } else {
                    collect(tree, collector, model, universe, snapshots, pins);
                }
            }
            collect(tree, collector, model, universe, snapshots, pins);
            pins.forEach(ReadPins.Pin::close);
            finalHorizon = tree.horizon();
            retained = observeAll(tree, universe, finalHorizon);
            reclaimed = collector.keysReclaimed();
        }
        // Reopened: the horizon is durable, and what stayed readable reads the same.
        try (VersionedTree tree = VersionedTree.open(RocksKvStore.open(directory))) {
            assertThat(tree.horizon()).isEqualTo(finalHorizon);
            assertThat(observeAll(tree, universe, finalHorizon)).isEqualTo(retained);
            checkAgainstModel(tree, model, universe);
        }
        return reclaimed;
    }

    private static void commit(VersionedTree tree, ReferenceTree model, Set<ObjectPath> universe, Random random) {
        List<WriteOp> ops = new ArrayList<>();
        int size = 1 + random.nextInt(2);
        for (int j = 0; j < size; j++) {
            ops.add(TestVersionHistories.randomOp(random, model, universe));
        }
        WriteSet writes = new WriteSet(ops);
        boolean cloneOfExpired =
                ops.stream().anyMatch(op -> op instanceof WriteOp.Clone clone && clone.sourceVid() < tree.horizon());
        long before = tree.lastVid();
        if (cloneOfExpired) {
            // The model would copy from a version the tree has collected: the tree must refuse instead.
            assertThatThrownBy(() -> tree.commit(writes))
                    .isInstanceOf(CatalogException.class)
                    .satisfies(e -> {
                        // An earlier write of the set may fail first; a clone that comes first is refused as expired.
                        if (ops.get(0) instanceof WriteOp.Clone clone && clone.sourceVid() < tree.horizon()) {
                            assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.VERSION_EXPIRED);
                        }
                    });
            assertThat(tree.lastVid()).isEqualTo(before);
            return;
        }
        boolean accepted = model.commit(writes);
        try {
            tree.commit(writes);
            assertThat(accepted).as("tree accepted %s", ops).isTrue();
        } catch (CatalogException e) {
            assertThat(accepted).as("tree refused %s: %s", ops, e.getMessage()).isFalse();
        }
        ops.forEach(op -> universe.add(op.path()));
        assertThat(tree.lastVid()).isEqualTo(model.lastVid());
    }

    private static void collect(
            VersionedTree tree,
            GarbageCollector collector,
            ReferenceTree model,
            Set<ObjectPath> universe,
            Map<String, Long> snapshots,
            List<ReadPins.Pin> pins) {
        for (long vid = 0; vid <= model.lastVid(); vid++) {
            universe.addAll(model.at(vid).keySet());
        }
        long previous = tree.horizon();
        Map<Long, Observed> before = observeAll(tree, universe, previous);
        GarbageCollector.PassResult pass = collector.collect();
        long horizon = tree.horizon();
        assertThat(pass.horizon()).isEqualTo(horizon);
        assertThat(horizon).isGreaterThanOrEqualTo(previous).isLessThanOrEqualTo(tree.lastVid());
        snapshots.values().forEach(vid -> assertThat(horizon).isLessThanOrEqualTo(vid));
        pins.forEach(pin -> assertThat(horizon).isLessThanOrEqualTo(pin.vid()));
        for (long vid = horizon; vid <= tree.lastVid(); vid++) {
            assertThat(observe(tree, universe, vid))
                    .as("vid %d after a pass to %d", vid, horizon)
                    .isEqualTo(before.get(vid));
        }
        for (long vid = 0; vid < horizon; vid++) {
            long expired = vid;
            assertExpired(() -> tree.read(ObjectPath.parse("/a"), expired));
            assertExpired(() -> tree.children(ObjectPath.ROOT, expired).close());
        }
        checkAgainstModel(tree, model, universe);
    }

    private static void checkAgainstModel(VersionedTree tree, ReferenceTree model, Set<ObjectPath> universe) {
        for (long vid = tree.horizon(); vid <= tree.lastVid(); vid++) {
            for (ObjectPath path : universe) {
                Optional<CatalogObject> actual = tree.read(path, vid);
                ReferenceTree.Entry expected = path.isRoot()
                        ? new ReferenceTree.Entry(ObjectKind.INNER, new BsonDocument())
                        : model.at(vid).get(path);
                if (expected == null) {
                    assertThat(actual).as("%s at %d", path, vid).isEmpty();
                } else {
                    assertThat(actual).as("%s at %d", path, vid).isPresent();
                    assertThat(actual.get().kind()).isEqualTo(expected.kind());
                    assertThat(actual.get().value()).as("%s at %d", path, vid).isEqualTo(expected.value());
                    if (expected.kind() == ObjectKind.INNER) {
                        assertThat(children(tree, path, vid))
                                .as("children of %s at %d", path, vid)
                                .isEqualTo(model.children(path, vid));
                    }
                }
            }
        }
    }

    /** What a vid reads: each path's kind and value, and each inner object's children. */
    private record Observed(Map<ObjectPath, String> objects, Map<ObjectPath, List<ObjectPath>> children) {}

    private static Map<Long, Observed> observeAll(VersionedTree tree, Set<ObjectPath> universe, long from) {
        Map<Long, Observed> observed = new TreeMap<>();
        for (long vid = from; vid <= tree.lastVid(); vid++) {
            observed.put(vid, observe(tree, universe, vid));
        }
        return observed;
    }

    private static Observed observe(VersionedTree tree, Set<ObjectPath> universe, long vid) {
        Map<ObjectPath, String> objects = new TreeMap<>();
        Map<ObjectPath, List<ObjectPath>> children = new TreeMap<>();
        for (ObjectPath path : universe) {
            Optional<CatalogObject> object = tree.read(path, vid);
            if (object.isPresent()) {
                objects.put(
                        path, object.get().kind() + " " + object.get().value().toJson());
                if (object.get().kind() == ObjectKind.INNER) {
                    children.put(path, children(tree, path, vid));
                }
            }
        }
        return new Observed(objects, children);
    }

    private static List<ObjectPath> children(VersionedTree tree, ObjectPath parent, long vid) {
        List<ObjectPath> children = new ArrayList<>();
        try (ChildCursor cursor = tree.children(parent, vid)) {
            while (cursor.advance()) {
                children.add(parent.child(cursor.id()));
            }
        }
        return children;
    }

    private static void assertExpired(Runnable read) {
        assertThatThrownBy(read::run)
                .isInstanceOf(CatalogException.class)
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.VERSION_EXPIRED))
                .hasMessageContaining("has expired: the oldest readable version is");
    }

    private static void deleteTree(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
