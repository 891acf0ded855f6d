package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.ImmutableSQLViewRepresentation;
import org.apache.iceberg.view.ImmutableViewVersion;
import org.apache.iceberg.view.ViewMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata files are numbered as Iceberg numbers them: each commit's file is the previous file's
 * version plus one ({@code <version>-<uuid>.metadata.json}, five digits and growing), for tables past
 * the 100 files their metadata log keeps, and for views.
 */
class TestMetadataFileNames {
    private static final Principal WHO = Principal.ANONYMOUS;
    private static final String CATALOG = "cat";
    private static final Namespace DB = Namespace.of("db");
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    private static final Pattern NAME = Pattern.compile(".*/metadata/(\\d{5,})-[0-9a-f-]{36}\\.metadata\\.json");
    private static final int COMMITS = 120;

    @TempDir
    Path directory;

    private CatalogService service;
    private Lakehouse lake;

    @BeforeEach
    void open() {
        service = LakeTestStores.open(directory.resolve("catalog"));
        lake = Lakehouse.of(
                () -> service,
                Warehouses.underRoot(LocalFileIO.location(directory.resolve("warehouse")), new LocalFileIO()),
                Authorizer.allowAll());
        new IcebergNamespaces(lake).create(WHO, CATALOG, DB, Map.of());
    }

    @AfterEach
    void close() {
        service.close();
    }

    private static int version(String location) {
        Matcher matcher = NAME.matcher(location);
        assertThat(matcher.matches()).as(location).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    @Test
    void tableMetadataFilesKeepCountingPastTheMetadataLog() {
        IcebergTables tables = new IcebergTables(lake, false);
        TableIdentifier table = TableIdentifier.of(DB, "t");
        TableMetadata created = tables.create(WHO, CATALOG, DB, NewTable.of("t", SCHEMA));
        List<Integer> versions = new ArrayList<>(List.of(version(created.metadataFileLocation())));
        for (int i = 1; i <= COMMITS; i++) {
            TableMetadata committed = tables.commit(
                            WHO,
                            CATALOG,
                            List.of(new TableChange(
                                    table,
                                    List.of(new UpdateRequirement.AssertTableUUID(created.uuid())),
                                    List.of(new MetadataUpdate.SetProperties(Map.of("commit", String.valueOf(i)))))))
                    .get(0);
            versions.add(version(committed.metadataFileLocation()));
        }

        assertThat(versions).isEqualTo(IntStream.rangeClosed(0, COMMITS).boxed().toList());
        TableMetadata current = tables.load(WHO, CATALOG, ReadPoint.LATEST, table);
        assertThat(version(current.metadataFileLocation())).isEqualTo(COMMITS);
        // The metadata log is capped (write.metadata.previous-versions-max, 100), the file names are not.
        assertThat(current.previousFiles()).hasSize(100);
        assertThat(current.metadataFileLocation()).matches(".*/metadata/00120-[0-9a-f-]{36}\\.metadata\\.json");
    }

    @Test
    void aRegisteredTablesFileNamedOtherwiseIsFollowedByVersionZeroThenCounts() {
        IcebergTables tables = new IcebergTables(lake, false);
        TableMetadata created = tables.create(WHO, CATALOG, DB, NewTable.of("source", SCHEMA));
        // A file named as Hadoop tables name theirs.
        String hadoopNamed = created.location() + "/metadata/v3.metadata.json";
        TableMetadataParser.write(created, new LocalFileIO().newOutputFile(hadoopNamed));
        tables.register(WHO, CATALOG, DB, "registered", hadoopNamed, false);
        TableIdentifier registered = TableIdentifier.of(DB, "registered");

        List<Integer> versions = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            versions.add(version(tables.commit(
                            WHO,
                            CATALOG,
                            List.of(new TableChange(
                                    registered,
                                    List.of(),
                                    List.of(new MetadataUpdate.SetProperties(Map.of("commit", String.valueOf(i)))))))
                    .get(0)
                    .metadataFileLocation()));
        }
        assertThat(versions).containsExactly(0, 1, 2);
    }

    @Test
    void viewMetadataFilesKeepCounting() {
        IcebergViews views = new IcebergViews(lake);
        TableIdentifier view = TableIdentifier.of(DB, "v");
        ViewMetadata created = views.create(WHO, CATALOG, DB, new NewView("v", SCHEMA, version(1), null, Map.of()));
        List<Integer> versions = new ArrayList<>(List.of(version(created.metadataFileLocation())));
        for (int i = 2; i <= COMMITS + 1; i++) {
            ViewMetadata committed = views.commit(
                    WHO,
                    CATALOG,
                    new TableChange(
                            view,
                            List.of(new UpdateRequirement.AssertViewUUID(created.uuid())),
                            List.of(
                                    new MetadataUpdate.AddViewVersion(version(i)),
                                    new MetadataUpdate.SetCurrentViewVersion(-1))));
            versions.add(version(committed.metadataFileLocation()));
        }

        assertThat(versions).isEqualTo(IntStream.rangeClosed(0, COMMITS).boxed().toList());
    }

    private static org.apache.iceberg.view.ViewVersion version(int id) {
        return ImmutableViewVersion.builder()
                .versionId(id)
                .schemaId(0)
                .timestampMillis(System.currentTimeMillis())
                .defaultNamespace(DB)
                .putSummary("operation", "replace")
                .addRepresentations(ImmutableSQLViewRepresentation.builder()
                        .sql("select " + id + " as id")
                        .dialect("spark")
                        .build())
                .build();
    }
}
