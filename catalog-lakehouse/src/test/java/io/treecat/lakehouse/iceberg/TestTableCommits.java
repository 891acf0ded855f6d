package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table commit through the transaction runner: a commit that loses a race on the table object
 * is run again on the server (re-read, requirements re-checked), the metadata file each abandoned
 * attempt wrote is deleted ({@code onAbandon}), and a commit that loses every attempt ends with the
 * lake's COMMIT_CONFLICT and leaves no metadata file behind.
 */
class TestTableCommits {
    private static final Principal WHO = Principal.ANONYMOUS;
    private static final String CATALOG = "cat";
    private static final Namespace DB = Namespace.of("db");
    private static final TableIdentifier TABLE = TableIdentifier.of(DB, "t");
    private static final ObjectPath TABLE_PATH = IcebergNames.tablePath(CATALOG, TABLE);
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    @TempDir
    Path directory;

    private CatalogService service;
    private InterferingIO io;
    private IcebergTables tables;

    @BeforeEach
    void open() {
        service = LakeTestStores.open(directory.resolve("catalog"));
        io = new InterferingIO();
        Lakehouse lake = Lakehouse.of(
                () -> service,
                Warehouses.underRoot(LocalFileIO.location(directory.resolve("warehouse")), io),
                Authorizer.allowAll());
        new IcebergNamespaces(lake).create(WHO, CATALOG, DB, Map.of());
        tables = new IcebergTables(lake, false);
        tables.create(WHO, CATALOG, DB, NewTable.of("t", SCHEMA));
    }

    @AfterEach
    void close() {
        service.close();
    }

    @Test
    void aCommitThatLosesARaceRunsAgainAndTheLostAttemptsMetadataFileIsDeleted() throws IOException {
        TableMetadata base = tables.load(WHO, CATALOG, ReadPoint.LATEST, TABLE);
        io.interferences = 1;

        TableMetadata committed = tables.commit(WHO, CATALOG, List.of(setProperty(base, "k", "v")))
                .get(0);

        assertThat(io.metadataWrites).isEqualTo(2);
        assertThat(committed.properties()).containsEntry("k", "v");
        TableEntry stored = TableEntry.decode(
                service.get(TABLE_PATH, ReadPoint.LATEST).orElseThrow().value());
        assertThat(stored.metadataLocation()).isEqualTo(committed.metadataFileLocation());
        // The retry read the winner's change and kept it; only the create's and the committed file remain.
        assertThat(stored.others().getInt32("note").getValue()).isEqualTo(1);
        assertThat(metadataFiles())
                .containsExactlyInAnyOrder(
                        Path.of(java.net.URI.create(base.metadataFileLocation()))
                                .getFileName()
                                .toString(),
                        Path.of(java.net.URI.create(committed.metadataFileLocation()))
                                .getFileName()
                                .toString());
    }

    @Test
    void aCommitThatLosesEveryAttemptIsACommitConflictAndLeavesNoMetadataFile() throws IOException {
        TableMetadata base = tables.load(WHO, CATALOG, ReadPoint.LATEST, TABLE);
        io.interferences = Integer.MAX_VALUE;

        assertThatThrownBy(() -> tables.commit(WHO, CATALOG, List.of(setProperty(base, "k", "v"))))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.COMMIT_CONFLICT));

        assertThat(io.metadataWrites).isGreaterThan(1);
        assertThat(metadataFiles())
                .containsExactly(Path.of(java.net.URI.create(base.metadataFileLocation()))
                        .getFileName()
                        .toString());
        assertThat(tables.load(WHO, CATALOG, ReadPoint.LATEST, TABLE).properties())
                .doesNotContainKey("k");
    }

    @Test
    void aFailedRequirementIsIcebergsOwnAndIsNotRunAgain() throws IOException {
        TableMetadata base = tables.load(WHO, CATALOG, ReadPoint.LATEST, TABLE);
        tables.commit(WHO, CATALOG, List.of(setProperty(base, "a", "1")));
        TableChange stale = new TableChange(
                TABLE,
                List.of(new UpdateRequirement.AssertLastAssignedFieldId(base.lastColumnId() + 1)),
                List.of(new MetadataUpdate.SetProperties(Map.of("b", "2"))));

        assertThatThrownBy(() -> tables.commit(WHO, CATALOG, List.of(stale)))
                .isInstanceOf(org.apache.iceberg.exceptions.CommitFailedException.class)
                .hasMessageContaining("Requirement failed");
        assertThat(metadataFiles()).hasSize(2);
    }

    private static TableChange setProperty(TableMetadata base, String key, String value) {
        return new TableChange(
                TABLE,
                List.of(new UpdateRequirement.AssertTableUUID(base.uuid())),
                List.of(new MetadataUpdate.SetProperties(Map.of(key, value))));
    }

    private List<String> metadataFiles() throws IOException {
        try (Stream<Path> files = Files.list(directory
                .resolve("warehouse")
                .resolve(CATALOG)
                .resolve("db")
                .resolve("t")
                .resolve("metadata"))) {
            return files.map(path -> path.getFileName().toString()).toList();
        }
    }

    /**
     * A {@link LocalFileIO} that, while a commit writes its metadata file (inside the commit's
     * transaction), lets another writer change the table object first, {@code interferences} times.
     */
    private final class InterferingIO implements FileIO {
        private final LocalFileIO local = new LocalFileIO();
        int interferences;
        int metadataWrites;

        @Override
        public InputFile newInputFile(String location) {
            return local.newInputFile(location);
        }

        @Override
        public OutputFile newOutputFile(String location) {
            if (location.endsWith(".metadata.json")
                    && service.get(TABLE_PATH, ReadPoint.LATEST).isPresent()) {
                metadataWrites++;
                if (interferences > 0) {
                    interferences--;
                    BsonDocument value = new BsonDocument();
                    value.putAll(service.get(TABLE_PATH, ReadPoint.LATEST)
                            .orElseThrow()
                            .value());
                    value.put(
                            "note",
                            new BsonInt32(
                                    value.containsKey("note")
                                            ? value.getInt32("note").getValue() + 1
                                            : 1));
                    service.commit(new WriteSet(List.of(new WriteOp.Update(TABLE_PATH, ObjectKind.INNER, value))));
                }
            }
            return local.newOutputFile(location);
        }

        @Override
        public void deleteFile(String location) {
            local.deleteFile(location);
        }
    }
}
