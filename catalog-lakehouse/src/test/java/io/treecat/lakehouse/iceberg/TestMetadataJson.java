package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.junit.jupiter.api.Test;

/**
 * A metadata file's JSON with each snapshot spliced in from its one encoding ({@link MetadataJson}) is byte for byte
 * what Iceberg's own serializer writes, whatever the snapshots hold and whichever format version, and stays so as
 * commits build new metadata on the snapshots of the old.
 */
class TestMetadataJson {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "day", Types.DateType.get()),
            Types.NestedField.optional(3, "note", Types.StringType.get()));
    private static final PartitionSpec SPEC =
            PartitionSpec.builderFor(SCHEMA).day("day").build();

    private static TableMetadata table(int formatVersion) {
        return TableMetadata.newTableMetadata(
                SCHEMA,
                SPEC,
                SortOrder.unsorted(),
                "file:/warehouse/db/t",
                Map.of("format-version", Integer.toString(formatVersion), "owner", "ünïcode \"quoted\"\n"));
    }

    /** A snapshot as Iceberg's parser reads one: {@code fields} go inside the object after its id. */
    private static Snapshot snapshot(long id, String fields) {
        return SnapshotParser.fromJson("{\"snapshot-id\":" + id + "," + fields + "}");
    }

    private static TableMetadata committed(TableMetadata base, Snapshot snapshot) {
        return TableMetadata.buildFrom(base)
                .addSnapshot(snapshot)
                .setRef(
                        SnapshotRef.MAIN_BRANCH,
                        SnapshotRef.branchBuilder(snapshot.snapshotId()).build())
                .build();
    }

    private static void assertSameAsIceberg(TableMetadata metadata) {
        String iceberg = TableMetadataParser.toJson(metadata);
        assertThat(new String(MetadataJson.of(metadata), StandardCharsets.UTF_8))
                .isEqualTo(iceberg);
    }

    @Test
    void aTableWithoutSnapshots() {
        assertSameAsIceberg(table(2));
    }

    @Test
    void formatTwoSnapshotsWithSummariesParentsRefsAndStatistics() {
        TableMetadata metadata = table(2);
        Snapshot first = snapshot(
                101,
                "\"sequence-number\":1,\"timestamp-ms\":1700000000000,\"manifest-list\":\"file:/m/snap-101.avro\","
                        + "\"summary\":{\"operation\":\"append\",\"added-data-files\":\"3\",\"spark.app.id\":"
                        + "\"local-1 é \\\" \\\\ \\n\"},\"schema-id\":0");
        metadata = committed(metadata, first);
        Snapshot second = snapshot(
                102,
                "\"parent-snapshot-id\":101,\"sequence-number\":2,\"timestamp-ms\":1700000001000,"
                        + "\"manifest-list\":\"file:/m/snap-102.avro\",\"summary\":{\"operation\":\"overwrite\"}");
        metadata = committed(metadata, second);
        metadata = TableMetadata.buildFrom(metadata)
                .setRef(
                        "nightly",
                        SnapshotRef.tagBuilder(101).maxRefAgeMs(86_400_000L).build())
                .setStatistics(new GenericStatisticsFile(102, "file:/m/stats.puffin", 10, 4, List.of()))
                .build();
        assertSameAsIceberg(metadata);
    }

    @Test
    void formatOneSnapshotsWithTheirManifestsInline() {
        TableMetadata metadata = table(1);
        metadata = committed(
                metadata,
                snapshot(
                        7,
                        "\"timestamp-ms\":1600000000000,\"manifests\":[\"file:/m/a.avro\",\"file:/m/b.avro\"],"
                                + "\"summary\":{\"operation\":\"append\"}"));
        metadata = committed(
                metadata,
                snapshot(
                        8,
                        "\"parent-snapshot-id\":7,\"timestamp-ms\":1600000001000,\"manifest-list\":\"file:/m/l.avro\","
                                + "\"summary\":{\"operation\":\"append\"}"));
        assertSameAsIceberg(metadata);
    }

    @Test
    void formatThreeSnapshotsWithRowLineage() {
        TableMetadata metadata = table(3);
        metadata = committed(
                metadata,
                snapshot(
                        201,
                        "\"sequence-number\":1,\"timestamp-ms\":1700000000000,\"manifest-list\":\"file:/m/s.avro\","
                                + "\"summary\":{\"operation\":\"append\"},\"schema-id\":0,\"first-row-id\":0,"
                                + "\"added-rows\":25"));
        assertSameAsIceberg(metadata);
    }

    @Test
    void commitsThatShareTheirSnapshotsWithTheMetadataBefore() {
        TableMetadata metadata = table(2);
        for (long id = 1; id <= 300; id++) {
            String parent = id == 1 ? "" : "\"parent-snapshot-id\":" + (id - 1) + ",";
            metadata = committed(
                    metadata,
                    snapshot(
                            id,
                            parent + "\"sequence-number\":" + id + ",\"timestamp-ms\":" + (1_700_000_000_000L + id)
                                    + ",\"manifest-list\":\"file:/m/snap-" + id + ".avro\","
                                    + "\"summary\":{\"operation\":\"append\",\"total-records\":\"" + id * 10 + "\"}"));
            if (id % 37 == 0 || id == 300) {
                // Each snapshot before this commit was encoded by an earlier one: spliced in, not written again.
                assertSameAsIceberg(metadata);
            }
        }
        assertThat(metadata.snapshots()).hasSize(300);
    }

    @Test
    void aSnapshotOutOfPlaceIsRefusedSoTheCallerWritesTheWholeMetadata() throws Exception {
        TableMetadata metadata = committed(
                table(2),
                snapshot(
                        5,
                        "\"sequence-number\":1,\"timestamp-ms\":1,\"manifest-list\":\"file:/m/5.avro\","
                                + "\"summary\":{\"operation\":\"append\"}"));
        Snapshot other = snapshot(6, "\"sequence-number\":1,\"timestamp-ms\":1,\"manifest-list\":\"file:/m/6.avro\"");
        List<SerializableString> otherJson = List.of(new SerializedString(SnapshotParser.toJson(other, false)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator generator = new SnapshotSplicingGenerator(
                JsonUtil.factory().createGenerator(out, JsonEncoding.UTF8), List.of(other), otherJson)) {
            assertThatThrownBy(() -> TableMetadataParser.toJson(metadata, generator))
                    .isInstanceOf(SnapshotSplicingGenerator.Mismatch.class)
                    .hasMessage("Snapshot 5 is not the one in place 0");
        }
        // The same metadata through MetadataJson: spliced, since there each snapshot is in its place.
        assertSameAsIceberg(metadata);
    }
}
