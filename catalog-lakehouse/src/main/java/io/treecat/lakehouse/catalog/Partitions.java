package io.treecat.lakehouse.catalog;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.version.ChildKinds;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Partitions in the Hive layout (DESIGN §7): one tree level per partition key under the table object.
 * A table partitioned by {@code (ds, hr)} keeps partition {@code ds=2025-01-01/hr=7} at
 * {@code <table>/ds=2025-01-01/hr=7}: each level's id is {@code key=value} with Hive's path escaping
 * ({@link #levelId}), so a partition's path below its table is its Hive name, and the children of one
 * level are one contiguous key range that a level predicate seeks in.
 *
 * <p>Every level is a {@link PartitionEntry#hiveLevel Hive level}: the key, the value as text and, for
 * an {@link PartitionKey#integral integral} key whose value is an integer, the value as a number, so a
 * level predicate can compare numerically. The last level is the partition: it also holds what the
 * protocol keeps of it ({@link PartitionEntry#hivePartition()}, location, statistics). A level above
 * the last exists while some partition is below it: adding creates the missing ones, dropping removes
 * the ones it leaves empty.
 *
 * <p>Every lookup reads through the caller's transaction, so what an operation decided on is in its
 * scan set: an add reads the partition's path and each level it might create, a drop the children of
 * each level it might remove, a listing the levels it walks. A concurrent change of any of these (two
 * drops emptying one level, an add below a level being removed) fails the commit's validation instead
 * of being lost. The protocol checks its arguments (one value per key) and reports its own errors;
 * here a mismatch is a programming error.
 */
public final class Partitions {
    /** The level value of a null or empty partition value, as Hive names it. */
    public static final String DEFAULT_VALUE = "__HIVE_DEFAULT_PARTITION__";

    /** The characters Hive's {@code FileUtils.escapePathName} writes as {@code %XX}. */
    private static final boolean[] ESCAPED = new boolean[128];

    static {
        for (int c = 1; c < 32; c++) {
            ESCAPED[c] = true;
        }
        for (char c : new char[] {'"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', 0x7F, '{', '[', ']', '^'}) {
            ESCAPED[c] = true;
        }
    }

    private Partitions() {}

    /**
     * One partition key of a table: its name, lower-cased as levels keep it, and whether its values are
     * integers (their levels then also keep the number).
     */
    public record PartitionKey(String name, boolean integral) {
        public PartitionKey {
            name = requireNonNull(name, "name is null").toLowerCase(Locale.ROOT);
        }
    }

    // ---- paths and levels

    /**
     * Hive's path escaping ({@code FileUtils.escapePathName}): the characters 0x01–0x1F and 0x7F and
     * <code>" # % ' * / : = ? \ { [ ] ^</code> become {@code %XX} (upper-case hex), and a null or empty
     * text is {@link #DEFAULT_VALUE}.
     */
    public static String escape(String text) {
        if (text == null || text.isEmpty()) {
            return DEFAULT_VALUE;
        }
        StringBuilder escaped = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 128 && ESCAPED[c]) {
                escaped.append('%').append(String.format(Locale.ROOT, "%02X", (int) c));
            } else {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /** One level's id: {@code escape(lower(key))=escape(value)}. */
    public static String levelId(String key, String value) {
        return escape(key.toLowerCase(Locale.ROOT)) + "=" + escape(value);
    }

    /** The path of the partition with these values, one per key, below {@code table}. */
    public static ObjectPath path(ObjectPath table, List<PartitionKey> keys, List<String> values) {
        requireValues(keys, values);
        ObjectPath path = table;
        for (int i = 0; i < keys.size(); i++) {
            path = path.child(levelId(keys.get(i).name(), values.get(i)));
        }
        return path;
    }

    private static void requireValues(List<PartitionKey> keys, List<String> values) {
        if (keys.isEmpty() || values == null || values.size() != keys.size()) {
            throw new IllegalArgumentException("Need one partition value per key");
        }
    }

    /** The level of {@code key} with {@code value}; the partition's last level adds the protocol's struct to it. */
    public static PartitionEntry level(PartitionKey key, String value) {
        Long number = value == null ? null : number(value);
        return PartitionEntry.hiveLevel(key.name(), value, key.integral() && number != null ? number : null);
    }

    /** An integer as a partition value holds one (surrounding blanks allowed), as Hive's filter reads it; else null. */
    private static Long number(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether an object is a partition: the last level, with the protocol's struct. */
    public static boolean isPartition(CatalogObject object) {
        // The struct alone marks the last level, as it always has: each test of a stored value re-scans its
        // bytes, and listings test every row they read (a second test, of obj_type, cost ~5% of a listing).
        return object.value().containsKey(LakeKeys.HMS_PARTITION);
    }

    private static boolean isPartition(Optional<CatalogObject> object) {
        return object.isPresent() && isPartition(object.get());
    }

    // ---- lookups

    /** The partition with these values, read in {@code txn}; empty if there is none. */
    public static Optional<CatalogObject> find(
            LakeTransaction txn, ObjectPath table, List<PartitionKey> keys, List<String> values) {
        Optional<CatalogObject> object = txn.read(path(table, keys, values));
        return isPartition(object) ? object : Optional.empty();
    }

    /** Whether anything is at the path of the partition with these values, read in {@code txn}. */
    public static boolean exists(LakeTransaction txn, ObjectPath table, List<PartitionKey> keys, List<String> values) {
        return txn.read(path(table, keys, values)).isPresent();
    }

    /**
     * The existing partitions among these values (one list per partition), in the order asked, each
     * once; read one by one in {@code txn}.
     */
    public static List<CatalogObject> findAll(
            LakeTransaction txn, ObjectPath table, List<PartitionKey> keys, List<List<String>> valuesList) {
        List<CatalogObject> rows = new ArrayList<>();
        Set<ObjectPath> seen = new HashSet<>();
        for (List<String> values : valuesList) {
            ObjectPath path = path(table, keys, values);
            if (seen.add(path)) {
                Optional<CatalogObject> object = txn.read(path);
                if (isPartition(object)) {
                    rows.add(object.get());
                }
            }
        }
        return rows;
    }

    // ---- listing

    /** The level predicate that accepts every partition level: what a level without a condition gets. */
    public static String anyLevel() {
        return LakeKeys.OBJ_TYPE + " = " + PathSteps.literal(ObjectType.PARTITION.storedName());
    }

    /**
     * The partitions one path query below {@code table} returns, one predicate per level (the protocol
     * derives them from its filter; each must accept only partition levels, as {@link #anyLevel} does),
     * that also pass {@code test}; in path order, at most {@code max} (negative: all). The query is
     * paged; reading stops at the page that reaches {@code max}.
     */
    public static List<CatalogObject> list(
            LakeTransaction txn,
            ObjectPath table,
            List<String> levelPredicates,
            Predicate<CatalogObject> test,
            int max) {
        StringBuilder query = new StringBuilder(PathSteps.of(table));
        for (String predicate : levelPredicates) {
            query.append("/[").append(predicate).append(']');
        }
        QueryRequest request =
                QueryRequest.of(query.toString()).withResults(ChildKinds.INNER).withLimit(QueryRequest.MAX_LIMIT);
        List<CatalogObject> rows = new ArrayList<>();
        if (max == 0) {
            return rows;
        }
        while (true) {
            QueryPage page = txn.query(request);
            for (CatalogObject row : page.rows()) {
                if (isPartition(row) && test.test(row)) {
                    rows.add(row);
                    if (max >= 0 && rows.size() >= max) {
                        return rows;
                    }
                }
            }
            if (page.continuation().isEmpty()) {
                return rows;
            }
            request = request.withPageToken(page.continuation().get());
        }
    }

    /** Every partition of the table (or the first {@code max}), in path order. */
    public static List<CatalogObject> all(LakeTransaction txn, ObjectPath table, List<PartitionKey> keys, int max) {
        List<String> predicates = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            predicates.add(anyLevel());
        }
        return list(txn, table, predicates, row -> true, max);
    }

    /**
     * The partitions matching a partial spec: values for a prefix of the keys, where a null or empty
     * value matches any (Hive's {@code get_partitions_ps}); each given value is a seek to its level.
     */
    public static List<CatalogObject> matching(
            LakeTransaction txn, ObjectPath table, List<PartitionKey> keys, List<String> partialValues, int max) {
        if (partialValues.size() > keys.size()) {
            throw new IllegalArgumentException("More partition values than keys");
        }
        List<String> predicates = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String value = i < partialValues.size() ? partialValues.get(i) : null;
            predicates.add(
                    value == null || value.isEmpty()
                            ? anyLevel()
                            : "obj_id = "
                                    + PathSteps.literal(levelId(keys.get(i).name(), value)));
        }
        return list(txn, table, predicates, row -> true, max);
    }

    // ---- adding

    /** Starts adding partitions to {@code table} in {@code txn}; see {@link Additions}. */
    public static Additions additions(LakeTransaction txn, ObjectPath table, List<PartitionKey> keys) {
        return new Additions(txn, table, keys);
    }

    /**
     * Partitions added to one table in one transaction, one at a time, so the protocol can decide per
     * partition (skip an existing one, or fail) in its own order. The batch remembers the levels it
     * has seen and created: below a level it created nothing can exist yet, so a bulk add of new days
     * reads each new level once and no partition path below it.
     */
    public static final class Additions {
        private final LakeTransaction txn;
        private final ObjectPath table;
        private final List<PartitionKey> keys;
        private final Set<ObjectPath> levels = new HashSet<>();
        private final Set<ObjectPath> createdLevels = new HashSet<>();
        private final Set<ObjectPath> added = new HashSet<>();

        private Additions(LakeTransaction txn, ObjectPath table, List<PartitionKey> keys) {
            this.txn = requireNonNull(txn, "txn is null");
            this.table = requireNonNull(table, "table is null");
            this.keys = List.copyOf(keys);
            if (this.keys.isEmpty()) {
                throw new IllegalArgumentException("The table has no partition keys");
            }
        }

        /** Whether the partition with these values exists: added by this batch, or on the tree. */
        public boolean exists(List<String> values) {
            ObjectPath path = path(table, keys, values);
            return added.contains(path)
                    || (!createdLevels.contains(path.parent()) && txn.read(path).isPresent());
        }

        /**
         * Stages the levels above the partition that do not exist yet, then the partition as
         * {@code partition}. The caller has checked {@link #exists} (an existing one fails the commit).
         */
        public void add(List<String> values, PartitionEntry partition) {
            ObjectPath path = path(table, keys, values);
            ObjectPath level = table;
            for (int i = 0; i < keys.size() - 1; i++) {
                level = level.child(levelId(keys.get(i).name(), values.get(i)));
                if (levels.add(level)
                        && (createdLevels.contains(level.parent())
                                || txn.read(level).isEmpty())) {
                    txn.add(level, level(keys.get(i), values.get(i)));
                    createdLevels.add(level);
                }
            }
            txn.add(path, partition);
            added.add(path);
        }
    }

    // ---- changing

    /** Stages {@code partition} as the partition at {@code path} (found before in {@code txn}). */
    public static void update(LakeTransaction txn, ObjectPath path, PartitionEntry partition) {
        txn.update(path, partition);
    }

    /**
     * Removes these partitions of {@code table}, and every level above them left without a child, in
     * {@code txn}. A level stays if this transaction adds below it (a partition renamed within it). Each
     * level considered has its children read, so a partition added there concurrently conflicts with
     * the removal instead of being removed with it. The files stay; they are the protocol's to delete.
     */
    public static void drop(LakeTransaction txn, ObjectPath table, List<ObjectPath> partitions) {
        Set<ObjectPath> removed = new LinkedHashSet<>(partitions);
        for (ObjectPath path : partitions) {
            txn.remove(path);
        }
        int tableDepth = table.ids().size();
        // Walk the levels above, deepest first: a level whose children are all removed goes too.
        Map<ObjectPath, Set<String>> removedChildren =
                new TreeMap<>((a, b) -> b.ids().size() != a.ids().size()
                        ? Integer.compare(b.ids().size(), a.ids().size())
                        : a.compareTo(b));
        for (ObjectPath path : removed) {
            if (path.ids().size() - 1 > tableDepth) {
                removedChildren
                        .computeIfAbsent(path.parent(), parent -> new HashSet<>())
                        .add(path.id());
            }
        }
        while (!removedChildren.isEmpty()) {
            Map.Entry<ObjectPath, Set<String>> deepest =
                    removedChildren.entrySet().iterator().next();
            removedChildren.remove(deepest.getKey());
            ObjectPath level = deepest.getKey();
            if (!txn.addsBelow(level) && childIds(txn, level).stream().allMatch(deepest.getValue()::contains)) {
                txn.remove(level);
                if (level.ids().size() - 1 > tableDepth) {
                    removedChildren
                            .computeIfAbsent(level.parent(), parent -> new HashSet<>())
                            .add(level.id());
                }
            }
        }
    }

    /** The ids of every child of {@code parent}, of any kind and type, read in {@code txn}. */
    private static List<String> childIds(LakeTransaction txn, ObjectPath parent) {
        return txn
                .queryAll(QueryRequest.of(PathSteps.of(parent) + "/*")
                        .withResults(ChildKinds.BOTH)
                        .withProjection(List.of(LakeKeys.OBJ_TYPE))
                        .withLimit(QueryRequest.MAX_LIMIT))
                .stream()
                .map(CatalogObject::id)
                .toList();
    }
}
