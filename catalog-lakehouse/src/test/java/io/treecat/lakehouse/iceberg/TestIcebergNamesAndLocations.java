package io.treecat.lakehouse.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogMetrics;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.model.LakeObjectValidator;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lake operations check names and locations before their transaction starts, so a refused create
 * commits nothing and makes no directory anywhere; a create whose commit fails removes the directories
 * it made; names Iceberg allows but a path cannot hold are escaped in their default locations.
 */
class TestIcebergNamesAndLocations {
    private static final Principal WHO = Principal.ANONYMOUS;
    private static final String CATALOG = "cat";
    private static final Namespace DB = Namespace.of("db");
    private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

    @TempDir
    Path directory;

    private CatalogService service;
    /** A path whose next commit the store refuses, as a lost race or a full disk would. */
    private volatile ObjectPath refused;

    private IcebergNamespaces namespaces;
    private IcebergTables tables;

    @BeforeEach
    void open() {
        LakeObjectValidator lake = new LakeObjectValidator();
        service = new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory.resolve("catalog"), RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC(),
                CatalogMetrics.NONE,
                (writes, current) -> {
                    for (WriteOp write : writes.ops()) {
                        if (write instanceof WriteOp.Add add && add.path().equals(refused)) {
                            throw new CatalogException(ErrorCode.INVALID_WRITE_SET, "Refused by the test");
                        }
                    }
                    lake.validate(writes, current);
                });
        Lakehouse allowing = lakehouse(ExternalLocations.ALLOWED);
        namespaces = new IcebergNamespaces(allowing);
        tables = new IcebergTables(allowing, false);
        namespaces.create(WHO, CATALOG, DB, Map.of());
    }

    @AfterEach
    void close() {
        service.close();
    }

    private Lakehouse lakehouse(ExternalLocations external) {
        return Lakehouse.of(
                () -> service,
                Warehouses.underRoot(LocalFileIO.location(directory.resolve("warehouse")), new LocalFileIO(), external),
                Authorizer.allowAll(),
                LakeNames.DEFAULT);
    }

    @Test
    void refusedNamespaceNamesCommitNothingAndMakeNoDirectory() throws IOException {
        for (String name : List.of("..", "../../up2", "c\u001Fd", "s\uD800", "a".repeat(300))) {
            assertRefusedUntouched(
                    () -> namespaces.create(WHO, CATALOG, Namespace.of(name), Map.of()), ErrorCode.INVALID_NAME);
            assertRefusedUntouched(
                    () -> namespaces.create(WHO, CATALOG, Namespace.of("db", name), Map.of()), ErrorCode.INVALID_NAME);
        }
        assertRefusedUntouched(
                () -> namespaces.create(WHO, "..", Namespace.of("pfx"), Map.of()), ErrorCode.INVALID_NAME);
        assertRefusedUntouched(
                () -> namespaces.create(WHO, CATALOG, Namespace.of("x"), Map.of("location", "file:/w/../../x")),
                ErrorCode.INVALID_LOCATION);
        assertRefusedUntouched(
                () -> namespaces.updateProperties(WHO, CATALOG, DB, List.of(), Map.of("location", "/a/./b")),
                ErrorCode.INVALID_LOCATION);
    }

    @Test
    void refusedTableNamesAndLocationsCommitNothingAndWriteNoFile() throws IOException {
        for (String name : List.of("..", "../x", "t\u0000", "t\uDC00", "t".repeat(256))) {
            assertRefusedUntouched(
                    () -> tables.create(WHO, CATALOG, DB, NewTable.of(name, SCHEMA)), ErrorCode.INVALID_NAME);
            assertRefusedUntouched(
                    () -> tables.newTable(WHO, CATALOG, DB, NewTable.of(name, SCHEMA)), ErrorCode.INVALID_NAME);
            // A staged create's commit (assert-create) is a create too.
            assertRefusedUntouched(
                    () -> tables.commit(
                            WHO,
                            CATALOG,
                            List.of(new TableChange(
                                    TableIdentifier.of(DB, name),
                                    List.of(new UpdateRequirement.AssertTableDoesNotExist()),
                                    List.of()))),
                    ErrorCode.INVALID_NAME);
        }
        String escaping = LocalFileIO.location(directory.resolve("warehouse/cat/db")) + "/../../../escaped";
        assertRefusedUntouched(
                () -> tables.create(WHO, CATALOG, DB, new NewTable("t", SCHEMA, null, null, escaping, null)),
                ErrorCode.INVALID_LOCATION);
        assertRefusedUntouched(
                () -> tables.create(
                        WHO,
                        CATALOG,
                        DB,
                        new NewTable(
                                "t",
                                SCHEMA,
                                null,
                                null,
                                null,
                                Map.of(TableProperties.WRITE_METADATA_LOCATION, escaping + "/metadata"))),
                ErrorCode.INVALID_LOCATION);
        assertRefusedUntouched(
                () -> tables.register(WHO, CATALOG, DB, "t", escaping + "/metadata/v1.metadata.json", false),
                ErrorCode.INVALID_LOCATION);
        assertThat(directory.resolve("escaped")).doesNotExist();
    }

    @Test
    void aCommitThatSetsALocationWithADotSegmentIsRefusedAndLeavesNoFile() throws IOException {
        TableMetadata created = tables.create(WHO, CATALOG, DB, NewTable.of("t", SCHEMA));
        TableChange move = new TableChange(
                TableIdentifier.of(DB, "t"),
                List.of(new UpdateRequirement.AssertTableUUID(created.uuid())),
                List.of(new MetadataUpdate.SetLocation(created.location() + "/../../../moved")));

        assertRefusedUntouched(() -> tables.commit(WHO, CATALOG, List.of(move)), ErrorCode.INVALID_LOCATION);
        assertThat(tables.load(WHO, CATALOG, ReadPoint.LATEST, TableIdentifier.of(DB, "t"))
                        .metadataFileLocation())
                .isEqualTo(created.metadataFileLocation());
    }

    /** The commit fails after the directories were made (a lost race, a full disk): they go with it. */
    @Test
    void aCreateWhoseCommitFailsRemovesTheDirectoriesItMade() throws IOException {
        List<Path> before = tree();
        refused = ObjectPath.of(CATALOG, "fresh");
        assertThatThrownBy(() -> namespaces.create(WHO, CATALOG, Namespace.of("fresh"), Map.of()))
                .hasMessage("Refused by the test");
        refused = ObjectPath.of(CATALOG, "db", "t");
        assertThatThrownBy(() -> tables.create(WHO, CATALOG, DB, NewTable.of("t", SCHEMA)))
                .hasMessage("Refused by the test");
        String own = LocalFileIO.location(directory.resolve("elsewhere/deep/t"));
        assertThatThrownBy(() -> tables.create(WHO, CATALOG, DB, new NewTable("t", SCHEMA, null, null, own, null)))
                .hasMessage("Refused by the test");

        assertThat(tree()).isEqualTo(before);
        assertThat(service.get(ObjectPath.of(CATALOG, "fresh"), ReadPoint.LATEST))
                .isEmpty();
        assertThat(service.get(ObjectPath.of(CATALOG, "db", "t"), ReadPoint.LATEST))
                .isEmpty();
    }

    @Test
    void namesAPathCannotHoldAreEscapedInTheirDefaultLocations() {
        namespaces.create(WHO, CATALOG, Namespace.of("a/b"), Map.of());
        namespaces.create(WHO, CATALOG, Namespace.of("a/b", "50%"), Map.of());
        TableMetadata table = tables.create(WHO, CATALOG, Namespace.of("a/b", "50%"), NewTable.of("t\\1", SCHEMA));

        String warehouse = LocalFileIO.location(directory.resolve("warehouse"));
        assertThat(namespaces.load(WHO, CATALOG, ReadPoint.LATEST, Namespace.of("a/b")))
                .containsEntry("location", warehouse + "/cat/a%2Fb");
        assertThat(table.location()).isEqualTo(warehouse + "/cat/a%2Fb/50%25/t%5C1");
        assertThat(directory.resolve("warehouse/cat/a%2Fb/50%25/t%5C1/metadata"))
                .isDirectory();
        assertThat(directory.resolve("warehouse/cat/a")).doesNotExist();
    }

    @Test
    void withExternalLocationsRefusedNothingIsPlacedOrWrittenOutsideTheWarehouse() throws IOException {
        String outside = LocalFileIO.location(directory.resolve("outside/t"));
        TableMetadata placedBefore =
                tables.create(WHO, CATALOG, DB, new NewTable("old", SCHEMA, null, null, outside, null));
        Lakehouse strict = lakehouse(ExternalLocations.REFUSED);
        IcebergNamespaces strictNamespaces = new IcebergNamespaces(strict);
        IcebergTables strictTables = new IcebergTables(strict, false);

        assertRefusedUntouched(
                () -> strictNamespaces.create(
                        WHO,
                        CATALOG,
                        Namespace.of("x"),
                        Map.of("location", LocalFileIO.location(directory.resolve("o")))),
                ErrorCode.INVALID_LOCATION);
        assertRefusedUntouched(
                () -> strictTables.create(WHO, CATALOG, DB, new NewTable("t", SCHEMA, null, null, outside + "2", null)),
                ErrorCode.INVALID_LOCATION);
        assertRefusedUntouched(
                () -> strictTables.register(WHO, CATALOG, DB, "again", placedBefore.metadataFileLocation(), false),
                ErrorCode.INVALID_LOCATION);
        // A table placed outside while that was allowed can be read, but no longer written to.
        TableChange change = new TableChange(
                TableIdentifier.of(DB, "old"),
                List.of(new UpdateRequirement.AssertTableUUID(placedBefore.uuid())),
                List.of(new MetadataUpdate.SetProperties(Map.of("k", "v"))));
        assertRefusedUntouched(() -> strictTables.commit(WHO, CATALOG, List.of(change)), ErrorCode.INVALID_LOCATION);
        assertThat(strictTables
                        .load(WHO, CATALOG, ReadPoint.LATEST, TableIdentifier.of(DB, "old"))
                        .location())
                .isEqualTo(outside);
        // Inside, everything works as before.
        strictNamespaces.create(WHO, CATALOG, Namespace.of("inside"), Map.of());
        strictTables.create(WHO, CATALOG, Namespace.of("inside"), NewTable.of("t", SCHEMA));
    }

    /** Asserts the call is refused with {@code code}, and that neither the store nor the file tree changed. */
    private void assertRefusedUntouched(ThrowingCallable call, ErrorCode code) throws IOException {
        long vid = service.lastVid();
        List<Path> before = tree();
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(code));
        assertThat(service.lastVid()).isEqualTo(vid);
        assertThat(tree()).isEqualTo(before);
    }

    /** Every file and directory under the test's directory but the store's own. */
    private List<Path> tree() throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(path -> !path.startsWith(directory.resolve("catalog")))
                    .sorted()
                    .toList();
        }
    }
}
