package io.treecat.lakehouse.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Partitions.PartitionKey;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.PartitionEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Partition levels on a real store: what each operation stages, reads and leaves behind. */
class TestPartitions {
    private static final ObjectPath LOGS = ObjectPath.of("lake", "sales", "logs");
    private static final List<PartitionKey> KEYS = List.of(new PartitionKey("DS", false), new PartitionKey("hr", true));

    @TempDir
    Path directory;

    private LakeTestStores.Lake lake;
    private TransactionRunner runner;

    @BeforeEach
    void open() {
        lake = LakeTestStores.lake(directory);
        runner = lake.runner();
        runner.write(access(Action.CREATE_TABLE), txn -> {
            txn.add(ObjectPath.of("lake"), CatalogEntry.of("file:/w/lake"));
            txn.add(LOGS.parent(), NamespaceEntry.of(Map.of()));
            txn.add(LOGS, TableEntry.hive(bytes("logs"), "MANAGED_TABLE", "file:/w/lake/sales/logs", null));
            return null;
        });
    }

    @AfterEach
    void close() {
        lake.close();
    }

    private static Access access(Action action) {
        return Access.of(Principal.ANONYMOUS, action, LOGS);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The last level of a partition, as a protocol stages it: the level plus its struct. */
    private static PartitionEntry partition(String ds, String hr) {
        return Partitions.level(KEYS.get(1), hr).withHivePartition(bytes(ds + "/" + hr), "file:/w/" + ds + "/" + hr);
    }

    private void add(List<List<String>> partitions) {
        runner.write(access(Action.ADD_PARTITIONS), txn -> {
            Partitions.Additions additions = Partitions.additions(txn, LOGS, KEYS);
            for (List<String> values : partitions) {
                assertThat(additions.exists(values)).isFalse();
                additions.add(values, partition(values.get(0), values.get(1)));
                assertThat(additions.exists(values)).isTrue();
            }
            return null;
        });
    }

    private Optional<CatalogObject> latest(String... ids) {
        ObjectPath path = LOGS;
        for (String id : ids) {
            path = path.child(id);
        }
        return lake.service().get(path, ReadPoint.LATEST);
    }

    private static List<String> ids(List<CatalogObject> rows) {
        return rows.stream()
                .map(row -> String.join(
                        "/", row.path().ids().subList(3, row.path().ids().size())))
                .toList();
    }

    @Test
    void addCreatesEachMissingLevelOnceAboveThePartitions() {
        int staged = runner.write(access(Action.ADD_PARTITIONS), txn -> {
            Partitions.Additions additions = Partitions.additions(txn, LOGS, KEYS);
            additions.add(List.of("2025-01-01", "7"), partition("2025-01-01", "7"));
            additions.add(List.of("2025-01-01", "8"), partition("2025-01-01", "8"));
            return txn.writes().size();
        });
        assertThat(staged).isEqualTo(3); // one day level, two hours
        add(List.of(List.of("2025-01-02", "7")));

        assertThat(latest("ds=2025-01-01"))
                .map(level -> PartitionEntry.decode(level.value()))
                .contains(PartitionEntry.hiveLevel("ds", "2025-01-01", null));
        assertThat(latest("ds=2025-01-01", "hr=8"))
                .map(level -> PartitionEntry.decode(level.value()))
                .contains(partition("2025-01-01", "8"));
        assertThat(partition("2025-01-01", "8").partNumber()).isEqualTo(8L);
        assertThat(latest("ds=2025-01-02", "hr=7")).isPresent();

        // An existing level is read, not added again; the partition below it is new.
        runner.write(access(Action.ADD_PARTITIONS), txn -> {
            Partitions.Additions additions = Partitions.additions(txn, LOGS, KEYS);
            assertThat(additions.exists(List.of("2025-01-01", "7"))).isTrue();
            assertThat(additions.exists(List.of("2025-01-01", "9"))).isFalse();
            additions.add(List.of("2025-01-01", "9"), partition("2025-01-01", "9"));
            assertThat(txn.writes()).hasSize(1);
            return null;
        });
        assertThat(latest("ds=2025-01-01", "hr=9")).isPresent();
    }

    @Test
    void pathsEscapeValuesAsHiveNamesThem() {
        assertThat(Partitions.path(LOGS, KEYS, List.of("a/b:c", "")))
                .isEqualTo(LOGS.child("ds=a%2Fb%3Ac").child("hr=__HIVE_DEFAULT_PARTITION__"));
        assertThat(Partitions.level(KEYS.get(1), " 12 ").partNumber()).isEqualTo(12L);
        assertThat(Partitions.level(KEYS.get(1), "x").partNumber()).isNull();
        assertThat(Partitions.level(KEYS.get(0), "12").partNumber()).isNull();
    }

    @Test
    void findReturnsPartitionsOnlyAndFindAllKeepsTheOrderAsked() {
        add(List.of(List.of("2025-01-01", "7"), List.of("2025-01-01", "8")));

        runner.read(access(Action.LIST_PARTITIONS), txn -> {
            assertThat(Partitions.find(txn, LOGS, KEYS, List.of("2025-01-01", "7")))
                    .map(CatalogObject::path)
                    .contains(LOGS.child("ds=2025-01-01").child("hr=7"));
            assertThat(Partitions.find(txn, LOGS, KEYS, List.of("2025-01-01", "9")))
                    .isEmpty();
            assertThat(Partitions.exists(txn, LOGS, KEYS, List.of("2025-01-01", "8")))
                    .isTrue();
            assertThat(ids(Partitions.findAll(
                            txn,
                            LOGS,
                            KEYS,
                            List.of(
                                    List.of("2025-01-01", "8"),
                                    List.of("2025-01-02", "8"),
                                    List.of("2025-01-01", "7"),
                                    List.of("2025-01-01", "8")))))
                    .containsExactly("ds=2025-01-01/hr=8", "ds=2025-01-01/hr=7");
            return null;
        });
    }

    @Test
    void listRunsOnePredicatePerLevelInPathOrder() {
        add(List.of(
                List.of("2025-01-01", "7"),
                List.of("2025-01-01", "10"),
                List.of("2025-01-01", "8"),
                List.of("2025-01-02", "9")));

        runner.read(access(Action.LIST_PARTITIONS), txn -> {
            List<String> hourAtLeast8 =
                    List.of(Partitions.anyLevel(), Partitions.anyLevel() + " and (" + LakeKeys.PART_NUM + " >= 8)");
            assertThat(ids(Partitions.list(txn, LOGS, hourAtLeast8, row -> true, -1)))
                    .containsExactly("ds=2025-01-01/hr=10", "ds=2025-01-01/hr=8", "ds=2025-01-02/hr=9");
            assertThat(ids(Partitions.list(
                            txn, LOGS, hourAtLeast8, row -> !row.id().equals("hr=10"), 1)))
                    .containsExactly("ds=2025-01-01/hr=8");
            assertThat(Partitions.list(txn, LOGS, hourAtLeast8, row -> true, 0)).isEmpty();
            assertThat(ids(Partitions.all(txn, LOGS, KEYS, -1))).hasSize(4);
            assertThat(ids(Partitions.matching(txn, LOGS, KEYS, List.of("", "9"), -1)))
                    .containsExactly("ds=2025-01-02/hr=9");
            assertThat(ids(Partitions.matching(txn, LOGS, KEYS, List.of("2025-01-01"), 2)))
                    .containsExactly("ds=2025-01-01/hr=10", "ds=2025-01-01/hr=7");
            return null;
        });
    }

    @Test
    void dropRemovesTheLevelsItLeavesEmpty() {
        add(List.of(List.of("2025-01-01", "7"), List.of("2025-01-01", "8"), List.of("2025-01-02", "7")));
        runner.write(access(Action.DROP_PARTITIONS), txn -> {
            drop(txn, List.of(List.of("2025-01-01", "7"), List.of("2025-01-01", "8"), List.of("2025-01-02", "7")));
            return null;
        });
        assertThat(latest("ds=2025-01-01")).isEmpty();
        assertThat(latest("ds=2025-01-02")).isEmpty();
        assertThat(latest()).isPresent();

        add(List.of(List.of("2025-01-03", "7"), List.of("2025-01-03", "8")));
        runner.write(access(Action.DROP_PARTITIONS), txn -> {
            drop(txn, List.of(List.of("2025-01-03", "7")));
            return null;
        });
        assertThat(latest("ds=2025-01-03", "hr=7")).isEmpty();
        assertThat(latest("ds=2025-01-03", "hr=8")).isPresent();
    }

    @Test
    void dropKeepsALevelThisTransactionAddsBelow() {
        add(List.of(List.of("2025-01-01", "7")));
        // A rename within the level: the new partition is added before the old one is dropped.
        runner.write(access(Action.ALTER_PARTITIONS), txn -> {
            Partitions.Additions additions = Partitions.additions(txn, LOGS, KEYS);
            additions.add(List.of("2025-01-01", "9"), partition("2025-01-01", "9"));
            drop(txn, List.of(List.of("2025-01-01", "7")));
            return null;
        });
        assertThat(latest("ds=2025-01-01")).isPresent();
        assertThat(latest("ds=2025-01-01", "hr=7")).isEmpty();
        assertThat(latest("ds=2025-01-01", "hr=9")).isPresent();
    }

    @Test
    void aPartitionAddedConcurrentlyBelowALevelBeingEmptiedKeepsIt() {
        add(List.of(List.of("2025-01-01", "7")));
        AtomicInteger attempts = new AtomicInteger();
        runner.write(access(Action.DROP_PARTITIONS), txn -> {
            drop(txn, List.of(List.of("2025-01-01", "7")));
            if (attempts.incrementAndGet() == 1) {
                // Commits between this drop's read of the level's children and its commit.
                add(List.of(List.of("2025-01-01", "8")));
            }
            return null;
        });
        assertThat(attempts).hasValue(2);
        assertThat(latest("ds=2025-01-01", "hr=7")).isEmpty();
        assertThat(latest("ds=2025-01-01", "hr=8")).isPresent();
    }

    private static void drop(LakeTransaction txn, List<List<String>> partitions) {
        List<ObjectPath> paths = partitions.stream()
                .map(values -> Partitions.path(LOGS, KEYS, values))
                .toList();
        Partitions.drop(txn, LOGS, paths);
    }
}
