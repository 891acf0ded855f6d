package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.PartitionCallsFixture.DB;
import static io.treecat.conformance.hms.PartitionCallsFixture.REGION;
import static io.treecat.conformance.hms.PartitionCallsFixture.YR;
import static io.treecat.conformance.hms.PartitionCallsFixture.createDirectories;
import static io.treecat.conformance.hms.PartitionCallsFixture.directory;
import static io.treecat.conformance.hms.PartitionCallsFixture.list;
import static io.treecat.conformance.hms.PartitionCallsFixture.partition;
import static io.treecat.conformance.hms.PartitionCallsFixture.shared;
import static io.treecat.conformance.hms.PartitionCallsFixture.values;
import static io.treecat.conformance.hms.PartitionCallsFixture.writeString;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionSpecWithSharedSD;
import org.apache.hadoop.hive.metastore.api.PartitionValuesRequest;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The partition calls beyond filters, against Hive 4.0.1 and TreeCat, result by result and exception type by exception
 * type: {@code get_partition_values}, {@code get_partitions_pspec}, {@code get_part_specs_by_filter},
 * {@code add_partitions_pspec} and {@code exchange_partition(s)}, each with the input Hive refuses. Every comparison's
 * description starts with the Thrift call it compares and a colon. What is compared is {@link PartitionShapes}' (no
 * create times; locations relative to a table of the same server). Where TreeCat answers differently on purpose,
 * {@link #knownDivergences()} checks the difference itself. Strict: any other difference fails, listing them all (also
 * written to {@code target/hms-differential/partition-calls.txt}).
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "get_partition_values",
    "get_partitions_pspec",
    "get_part_specs_by_filter",
    "add_partitions_pspec",
    "exchange_partition",
    "exchange_partitions",
    "get_partitions",
    "get_partition_names"
})
class PartitionCallsDifferentialIT {

    private static HmsPeers peers;

    @BeforeAll
    static void createTables(HmsPeers shared) {
        peers = shared;
        Differential differential = peers.differential();
        PartitionCallsFixture.create(differential);
        differential.takeMismatches();
    }

    /** Every comparison of the running test and the answer (both, where they differ), for its report. */
    private static final List<String> ANSWERS = new ArrayList<>();

    private static <T> void compare(
            Differential differential,
            String description,
            Differential.Call<T> call,
            Function<? super T, ?> normalize) {
        Differential.Comparison comparison = differential.compare(description, call, normalize);
        ANSWERS.add(description + "\n    " + comparison.reference().describe()
                + (comparison.agreed()
                        ? ""
                        : "\n    TreeCat: " + comparison.candidate().describe()));
    }

    /** Fails the test on any mismatch; writes the mismatches, then every call and its answer, to {@code report}. */
    private static void assertNoMismatches(Differential differential, String report) throws IOException {
        int comparisons = differential.comparisons();
        List<Differential.Mismatch> mismatches = differential.takeMismatches();
        String text = differential.report(mismatches, comparisons) + "\nEvery call and Hive's answer:\n"
                + String.join("\n", ANSWERS) + "\n";
        ANSWERS.clear();
        Path out = Path.of("target", "hms-differential", report);
        Files.writeString(out, text, StandardCharsets.UTF_8);
        System.out.println(text);
        assertThat(mismatches).withFailMessage("%s", text).isEmpty();
    }

    @Test
    void partitionValues() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();
        compareValues(differential, "get_partition_values: distinct region", values("vals", REGION), true);
        compareValues(differential, "get_partition_values: distinct yr, region", values("vals", YR, REGION), true);
        PartitionValuesRequest upper = values("vals", new FieldSchema("REGION", "string", null));
        compareValues(differential, "get_partition_values: a key named in upper case", upper, true);
        PartitionValuesRequest max = values("vals", YR, REGION);
        max.setMaxParts(4);
        compareValues(differential, "get_partition_values: distinct, maxParts 4", max, true);
        PartitionValuesRequest all = values("vals", YR);
        all.setApplyDistinct(false);
        compareValues(differential, "get_partition_values: every row (applyDistinct false)", all, false);
        PartitionValuesRequest descending = values("vals", REGION);
        descending.setAscending(false);
        compareValues(differential, "get_partition_values: ascending false without a filter", descending, true);
        compareFiltered(differential, "yr > 9", true, -1);
        compareFiltered(differential, "region like 'u%'", false, -1);
        compareFiltered(differential, "region >= 'b'", false, 3);
        compareFiltered(differential, "yr >= 10", false, 3);
        compareFiltered(differential, "region <> 'a' and yr < 100", false, 2);
        compareFiltered(differential, "region = 'us_east'", true, 0);
        compareFiltered(differential, "region = 'us_east'", true, 1);
        compareFiltered(differential, "nokey = 1", true, -1);
        compareFiltered(differential, "region = = 'a'", true, -1);
        compareFiltered(differential, "yr = 'a'", true, -1);
        PartitionValuesRequest escaped = values("escaped", REGION);
        escaped.setFilter("region like '50%'");
        compareValues(differential, "get_partition_values: filter on an escaped value", escaped, true);
        compareValues(
                differential, "get_partition_values: a table without partition keys", values("flat", REGION), true);
        PartitionValuesRequest catalog = values("vals", REGION);
        catalog.setCatName("nocatalog");
        compareValues(differential, "get_partition_values: a catalog that does not exist", catalog, true);
        assertNoMismatches(differential, "partition-values.txt");
    }

    private static void compareFiltered(Differential differential, String filter, boolean ascending, int maxParts) {
        PartitionValuesRequest request = values("vals", REGION);
        request.setFilter(filter);
        request.setAscending(ascending);
        request.setMaxParts(maxParts);
        compareValues(
                differential,
                "get_partition_values: filter " + filter + (ascending ? "" : ", descending")
                        + (maxParts >= 0 ? ", maxParts " + maxParts : ""),
                request,
                true);
    }

    private static void compareValues(
            Differential differential, String description, PartitionValuesRequest request, boolean ordered) {
        compare(
                differential,
                description,
                (client, peer) -> client.get_partition_values(request.deepCopy()),
                ordered ? PartitionShapes::rows : PartitionShapes::sortedRows);
    }

    @Test
    void partitionSpecs() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();
        compareSpecs(
                differential,
                "get_partitions_pspec: every partition",
                "vals",
                (client, table) -> client.get_partitions_pspec(DB, table, -1));
        compareSpecs(
                differential,
                "get_partitions_pspec: table named in upper case",
                "vals",
                (client, table) -> client.get_partitions_pspec(DB.toUpperCase(java.util.Locale.ROOT), "VALS", -1));
        compare(
                differential,
                "get_partitions_pspec: max_parts 5",
                (client, peer) -> client.get_partitions_pspec(DB, "vals", 5),
                specs -> specs.get(0).getPartitionList().getPartitionsSize());
        compareSpecs(
                differential,
                "get_partitions_pspec: grouped by storage descriptor",
                "grouped",
                (client, table) -> client.get_partitions_pspec(DB, table, -1));
        compareSpecs(
                differential,
                "get_partitions_pspec: a table without partition keys",
                "flat",
                (client, table) -> client.get_partitions_pspec(DB, table, -1));
        compareSpecs(
                differential,
                "get_partitions_pspec: a table that does not exist",
                "vals",
                (client, table) -> client.get_partitions_pspec(DB, "nope", -1));
        compareSpecs(
                differential,
                "get_partitions_pspec: a database that does not exist",
                "vals",
                (client, table) -> client.get_partitions_pspec("nodb", "vals", -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: yr > 9",
                "vals",
                (client, table) -> client.get_part_specs_by_filter(DB, table, "yr > 9", -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: table named in upper case",
                "vals",
                (client, table) -> client.get_part_specs_by_filter(DB, "VALS", "region = 'a'", -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: no filter",
                "vals",
                (client, table) -> client.get_part_specs_by_filter(DB, table, null, -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: grouped, yr = 1",
                "grouped",
                (client, table) -> client.get_part_specs_by_filter(DB, table, "yr = 1", -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: a filter that does not parse",
                "vals",
                (client, table) -> client.get_part_specs_by_filter(DB, table, "yr >", -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: not a partition key",
                "vals",
                (client, table) -> client.get_part_specs_by_filter(DB, table, "nokey = 'a'", -1));
        compareSpecs(
                differential,
                "get_part_specs_by_filter: a table that does not exist",
                "vals",
                (client, table) -> client.get_part_specs_by_filter(DB, "nope", "yr > 9", -1));
        assertNoMismatches(differential, "partition-specs.txt");
    }

    @FunctionalInterface
    private interface SpecCall {
        List<PartitionSpec> call(ThriftHiveMetastore.Client client, String table) throws TException;
    }

    private static void compareSpecs(Differential differential, String description, String table, SpecCall call) {
        compare(
                differential,
                description,
                (client, peer) ->
                        PartitionShapes.specs(call.call(client, table), PartitionShapes.location(client, DB, table)),
                Function.identity());
    }

    @Test
    void addPartitionSpecs() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();
        compare(
                differential,
                "add_partitions_pspec: a shared descriptor with relative paths",
                (client, peer) -> client.add_partitions_pspec(
                        List.of(shared(client, List.of("a", "1"), "/region=a/yr=1", List.of("a", "2"), "/custom"))),
                Function.identity());
        compare(
                differential,
                "add_partitions_pspec: two specs, a list and a shared descriptor",
                (client, peer) -> client.add_partitions_pspec(List.of(
                        list(partition("specs", "l", "1"), partition("specs", "l", "2")),
                        shared(client, List.of("s", "1"), "/region=s/yr=1"))),
                Function.identity());
        compare(
                differential,
                "get_partitions: after add_partitions_pspec",
                (client, peer) -> PartitionShapes.partitions(
                        client.get_partitions(DB, "specs", (short) -1), PartitionShapes.location(client, DB, "specs")),
                Function.identity());
        refused(
                differential,
                "an existing partition",
                list(partition("specs", "x", "1"), partition("specs", "l", "1")));
        refused(differential, "a partition twice", list(partition("specs", "d", "1"), partition("specs", "d", "1")));
        refused(differential, "a partition of another table", list(partition("vals", "x", "1")));
        refused(differential, "a table that does not exist", list("nope", partition("nope", "x", "1")));
        refused(differential, "too few values", list(partition("specs", "x")));
        refused(differential, "a table without partition keys", list("flat", partition("flat", "x")));
        PartitionSpec noDescriptor = new PartitionSpec(DB, "specs", null);
        noDescriptor.setSharedSDPartitionSpec(new PartitionSpecWithSharedSD(List.of(), null));
        refused(differential, "a shared spec without a descriptor", noDescriptor);
        compare(
                differential,
                "add_partitions_pspec: a shared spec with no partitions",
                (client, peer) -> client.add_partitions_pspec(List.of(shared(client))),
                Function.identity());
        compare(
                differential,
                "add_partitions_pspec: no specs",
                (client, peer) -> client.add_partitions_pspec(List.of()),
                Function.identity());
        compare(
                differential,
                "get_partition_names: after the refused add_partitions_pspec calls",
                (client, peer) -> List.copyOf(new TreeSet<>(client.get_partition_names(DB, "specs", (short) -1))),
                Function.identity());
        assertNoMismatches(differential, "partition-specs-added.txt");
    }

    private static void refused(Differential differential, String description, PartitionSpec spec) {
        compare(
                differential,
                "add_partitions_pspec: " + description,
                (client, peer) -> client.add_partitions_pspec(List.of(spec.deepCopy())),
                Function.identity());
    }

    @Test
    void exchangePartitions() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();
        exchange(differential, "a different column type", Map.of("region", "eu"), "src", "othercols");
        exchange(differential, "different partition keys", Map.of("region", "eu"), "src", "otherkeys");
        exchange(differential, "no partition matches", Map.of("region", "xx"), "src", "othercols");
        exchange(differential, "the destination does not exist", Map.of("region", "eu"), "src", "nope");
        exchange(differential, "the source does not exist", Map.of("region", "eu"), "nope", "dst");
        exchange(differential, "an empty spec", Map.of(), "src", "dst");
        exchange(differential, "a key that is not a partition key", Map.of("day", "eu"), "src", "dst");
        exchange(differential, "the destination has the partition", Map.of("region", "z"), "src", "dst");
        exchange(differential, "source and destination the same", Map.of("region", "eu"), "src", "src");
        exchange(differential, "a spec of the second key only (no such directory)", Map.of("yr", "2"), "src", "dst");
        compare(
                differential,
                "exchange_partitions: null spec",
                (client, peer) -> client.exchange_partitions(null, DB, "src", DB, "dst"),
                Function.identity());
        compare(
                differential,
                "exchange_partitions: across catalogs",
                (client, peer) ->
                        client.exchange_partitions(Map.of("region", "eu"), "@hive#" + DB, "src", "@other#" + DB, "dst"),
                Function.identity());
        compare(
                differential,
                "exchange_partitions: the destination directory exists",
                (client, peer) -> {
                    createDirectories(directory(client, "dst").resolve("region=w"));
                    return client.exchange_partitions(Map.of("region", "w"), DB, "src", DB, "dst");
                },
                Function.identity());
        compare(
                differential,
                "exchange_partitions: a partial spec",
                (client, peer) -> {
                    writeString(directory(client, "src").resolve("region=eu/yr=1/data.txt"), "moved");
                    return PartitionShapes.partitions(
                            client.exchange_partitions(Map.of("region", "eu"), DB, "src", DB, "dst"),
                            PartitionShapes.location(client, DB, "dst"));
                },
                Function.identity());
        compare(
                differential,
                "exchange_partitions: the data moved with the partitions",
                (client, peer) -> List.of(
                        Files.isRegularFile(directory(client, "dst").resolve("region=eu/yr=1/data.txt")),
                        Files.exists(directory(client, "src").resolve("region=eu"))),
                Function.identity());
        compare(
                differential,
                "exchange_partition: a full spec, names in upper case",
                (client, peer) -> client.exchange_partition(
                                Map.of("region", "us", "yr", "1"), "PCALLS", "SRC", "PCALLS", "DST")
                        .toString(),
                Function.identity());
        for (String table : List.of("src", "dst")) {
            compare(
                    differential,
                    "get_partitions: " + table + " after the exchanges",
                    (client, peer) -> PartitionShapes.partitions(
                            client.get_partitions(DB, table, (short) -1), PartitionShapes.location(client, DB, table)),
                    Function.identity());
        }
        assertNoMismatches(differential, "exchange-partitions.txt");
    }

    private static void exchange(
            Differential differential, String description, Map<String, String> spec, String source, String dest) {
        compare(
                differential,
                "exchange_partitions: " + description,
                (client, peer) -> client.exchange_partitions(spec, DB, source, DB, dest),
                Function.identity());
    }

    /**
     * Where TreeCat answers differently on purpose (docs/hms-thrift.md): without a filter, Hive 4.0.1 answers values as
     * escaped in the partition's name ({@code 50%25off}) where TreeCat answers the value; it answers whatever its
     * substring arithmetic finds for a key the table does not have, where TreeCat refuses it; and it fails with an
     * internal error for no keys, where TreeCat answers a MetaException.
     */
    @Test
    void knownDivergences() {
        Differential differential = peers.differential();
        List<String> failures = new ArrayList<>();
        Differential.Outcome hiveEscaped = differential.reference(
                (client, peer) -> client.get_partition_values(values("escaped", REGION)), PartitionShapes::rows);
        Differential.Outcome treeCatEscaped = differential.candidate(
                (client, peer) -> client.get_partition_values(values("escaped", REGION)), PartitionShapes::rows);
        if (!List.of(List.of("50%25off"), List.of("plain")).equals(hiveEscaped.value())) {
            failures.add("Hive no longer escapes values without a filter: " + hiveEscaped.describe());
        }
        if (!List.of(List.of("50%off"), List.of("plain")).equals(treeCatEscaped.value())) {
            failures.add("TreeCat's values without a filter: " + treeCatEscaped.describe());
        }
        PartitionValuesRequest noKey = values("vals", new FieldSchema("nokey", "string", null));
        Differential.Outcome hiveNoKey = differential.reference(
                (client, peer) -> client.get_partition_values(noKey.deepCopy()), PartitionShapes::rows);
        Differential.Outcome treeCatNoKey = differential.candidate(
                (client, peer) -> client.get_partition_values(noKey.deepCopy()), PartitionShapes::rows);
        if (hiveNoKey.threw()) {
            failures.add("Hive now refuses a key the table does not have: " + hiveNoKey.describe());
        }
        if (!MetaException.class.getName().equals(treeCatNoKey.exception())) {
            failures.add("TreeCat answered a key the table does not have: " + treeCatNoKey.describe());
        }
        Differential.Outcome hiveNoKeys = differential.reference(
                (client, peer) -> client.get_partition_values(values("vals")), PartitionShapes::rows);
        Differential.Outcome treeCatNoKeys = differential.candidate(
                (client, peer) -> client.get_partition_values(values("vals")), PartitionShapes::rows);
        if (!org.apache.thrift.TApplicationException.class.getName().equals(hiveNoKeys.exception())) {
            failures.add("Hive no longer fails internally without keys: " + hiveNoKeys.describe());
        }
        if (!MetaException.class.getName().equals(treeCatNoKeys.exception())) {
            failures.add("TreeCat answered no keys with: " + treeCatNoKeys.describe());
        }
        assertThat(failures).isEmpty();
    }
}
