package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Partition filters, as Hive clients send them ({@code get_partitions_by_filter}, {@code get_num_partitions_by_filter}),
 * against Hive 4.0.1 and TreeCat on the same {@link PartitionedTable}: the partitions each returns (as sorted names),
 * the count, and for a filter one refuses, the exception type. Strict: any difference fails the test, listing every
 * one with its filter and both answers (also written to {@code target/hms-differential/partition-filters.txt}).
 *
 * <p>The filters are {@link FilterGenerator#regressions()} and then random ones:
 * {@code -Dhms.differential.seed} (a fixed one in CI) and {@code -Dhms.differential.filters} (how many).
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "add_partition",
    "get_partitions",
    "get_partition_names",
    "get_partitions_by_filter",
    "get_num_partitions_by_filter"
})
class PartitionFilterDifferentialIT {
    private static final long DEFAULT_SEED = 20261125L;
    private static final int DEFAULT_FILTERS = 300;

    private static HmsPeers peers;
    private static List<List<String>> defaultPartitions;
    /** Differences while adding the default partitions, which {@link #sameTableOnBothSides()} reports. */
    private static List<Differential.Mismatch> setUpMismatches;

    private static int setUpComparisons;

    @BeforeAll
    static void createTable(HmsPeers shared) {
        peers = shared;
        Differential differential = peers.differential();
        differential.setUp("create_database " + PartitionedTable.DATABASE, (client, peer) -> {
            client.create_database(PartitionedTable.database());
            return null;
        });
        differential.setUp("create_table " + PartitionedTable.TABLE, (client, peer) -> {
            client.create_table(PartitionedTable.table());
            return null;
        });
        differential.setUp(
                "add_partitions (" + PartitionedTable.regularValues().size() + ")",
                (client, peer) -> client.add_partitions(PartitionedTable.partitions(PartitionedTable.regularValues())));
        defaultPartitions = addDefaultPartitions(differential);
        setUpComparisons = differential.comparisons();
        setUpMismatches = differential.takeMismatches();
    }

    /**
     * Adds the partitions holding {@code __HIVE_DEFAULT_PARTITION__} one by one, each compared: the ones both servers
     * accept stay, and one accepted by a single side is dropped there again, so that both tables stay equal.
     */
    private static List<List<String>> addDefaultPartitions(Differential differential) {
        List<List<String>> added = new ArrayList<>();
        for (List<String> values : PartitionedTable.DEFAULT_PARTITIONS) {
            Differential.Comparison comparison = differential.compare(
                    "add_partition: " + PartitionedTable.name(values),
                    (client, peer) -> client.add_partition(
                            PartitionedTable.partitions(List.of(values)).get(0)),
                    partition -> PartitionedTable.name(partition.getValues()));
            if (comparison.agreed() && !comparison.reference().threw()) {
                added.add(values);
            }
        }
        // Whatever one side alone accepted goes again; a drop the other side refuses changes nothing.
        for (List<String> values : PartitionedTable.DEFAULT_PARTITIONS) {
            if (!added.contains(values)) {
                differential.compare(
                        "cleanup: drop_partition " + PartitionedTable.name(values),
                        (client, peer) ->
                                client.drop_partition(PartitionedTable.DATABASE, PartitionedTable.TABLE, values, false),
                        Function.identity());
            }
        }
        return added;
    }

    /** The default partitions as added, and the table as listed: the ground every filter runs on. */
    @Test
    void sameTableOnBothSides() {
        Differential differential = peers.differential();
        differential.takeMismatches();
        differential.compare(
                "get_partitions: all",
                (client, peer) -> client.get_partitions(PartitionedTable.DATABASE, PartitionedTable.TABLE, (short) -1),
                PartitionedTable::names);
        differential.compare(
                "get_partition_names: all",
                (client, peer) ->
                        client.get_partition_names(PartitionedTable.DATABASE, PartitionedTable.TABLE, (short) -1),
                names -> List.copyOf(new java.util.TreeSet<>(names)));
        int comparisons = setUpComparisons + differential.comparisons();
        List<Differential.Mismatch> mismatches = new ArrayList<>(setUpMismatches);
        mismatches.addAll(differential.takeMismatches());
        assertThat(mismatches)
                .withFailMessage("%s", differential.report(mismatches, comparisons))
                .isEmpty();
    }

    /**
     * Text after a complete filter: Hive 4.0.1 ignores it (its grammar has no end-of-input rule) and answers the part
     * before it; TreeCat refuses the filter with Hive's exception type for bad filters, a MetaException
     * ({@link KnownHiveDivergences}).
     */
    @Test
    void trailingTextIsRefusedWhereHiveIgnoresIt() {
        Differential differential = peers.differential();
        List<String> failures = new ArrayList<>();
        FilterGenerator.trailingText().forEach((filter, read) -> {
            Differential.Outcome hive = differential.reference(byFilter(filter), PartitionedTable::names);
            Differential.Outcome hiveRead = differential.reference(byFilter(read), PartitionedTable::names);
            Differential.Outcome treeCat = differential.candidate(byFilter(filter), PartitionedTable::names);
            if (!hive.agreesWith(hiveRead)) {
                failures.add(filter + ": Hive no longer reads it as " + read + ": " + hive.describe() + " vs "
                        + hiveRead.describe());
            }
            if (!MetaException.class.getName().equals(treeCat.exception())) {
                failures.add(filter + ": TreeCat answered " + treeCat.describe() + " instead of refusing it");
            }
        });
        assertThat(failures).isEmpty();
    }

    private static Differential.Call<List<Partition>> byFilter(String filter) {
        return (client, peer) ->
                client.get_partitions_by_filter(PartitionedTable.DATABASE, PartitionedTable.TABLE, filter, (short) -1);
    }

    @Test
    void partitionFilters() throws IOException {
        long seed = Long.getLong("hms.differential.seed", DEFAULT_SEED);
        int count = Integer.getInteger("hms.differential.filters", DEFAULT_FILTERS);
        List<String> filters = new ArrayList<>(FilterGenerator.regressions());
        filters.addAll(new FilterGenerator(seed).next(count));

        Differential differential = peers.differential();
        differential.takeMismatches();
        int differing = 0;
        int refusedByHive = 0;
        int emptyFromHive = 0;
        long begin = System.nanoTime();
        int rewrittenForHive = 0;
        for (String filter : filters) {
            // Hive answers an equivalent filter where its <> bug would touch this one (KnownHiveDivergences).
            String hiveFilter = KnownHiveDivergences.hiveEquivalent(filter);
            String shown = hiveFilter.equals(filter) ? filter : filter + "  (Hive asked: " + hiveFilter + ")";
            rewrittenForHive += hiveFilter.equals(filter) ? 0 : 1;
            Differential.Comparison partitions = differential.compare(
                    "get_partitions_by_filter: " + shown,
                    (client, peer) -> client.get_partitions_by_filter(
                            PartitionedTable.DATABASE, PartitionedTable.TABLE, hiveFilter, (short) -1),
                    (client, peer) -> client.get_partitions_by_filter(
                            PartitionedTable.DATABASE, PartitionedTable.TABLE, filter, (short) -1),
                    PartitionedTable::names);
            differential.compare(
                    "get_num_partitions_by_filter: " + shown,
                    (client, peer) -> client.get_num_partitions_by_filter(
                            PartitionedTable.DATABASE, PartitionedTable.TABLE, hiveFilter),
                    (client, peer) -> client.get_num_partitions_by_filter(
                            PartitionedTable.DATABASE, PartitionedTable.TABLE, filter),
                    Function.identity());
            differing += partitions.agreed() ? 0 : 1;
            refusedByHive += partitions.reference().threw() ? 1 : 0;
            emptyFromHive += List.of().equals(partitions.reference().value()) ? 1 : 0;
        }
        long millis = (System.nanoTime() - begin) / 1_000_000;

        int comparisons = differential.comparisons();
        List<Differential.Mismatch> mismatches = differential.takeMismatches();
        String summary = "seed " + seed + ", " + filters.size() + " filters ("
                + FilterGenerator.regressions().size()
                + " fixed), " + PartitionedTable.regularValues().size() + " + " + defaultPartitions.size()
                + " default partitions; startup " + peers.startup().toMillis() + " ms, calls " + millis + " ms; "
                + "Hive refused " + refusedByHive + " filters and matched nothing with " + emptyFromHive + "; "
                + rewrittenForHive
                + " filters Hive answered as an equivalent without its <> bug (KnownHiveDivergences); "
                + differing + " filters return different partitions\n";
        String report = summary + differential.report(mismatches, comparisons);
        Path out = Path.of("target", "hms-differential", "partition-filters.txt");
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(mismatches).withFailMessage("%s", report).isEmpty();
    }
}
