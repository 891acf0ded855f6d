package io.treecat.lakehouse.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Default locations are built under the warehouse; every location written to is checked against it. */
class TestWarehouse {
    private static final Warehouses ROOT = Warehouses.underRoot("file:/w/", new LocalFileIO());
    private static final Warehouses STRICT =
            Warehouses.underRoot("file:/w", new LocalFileIO(), ExternalLocations.REFUSED);

    @TempDir
    Path directory;

    @Test
    void eachNameIsOneEscapedSegmentBelowTheWarehouse() {
        Warehouse warehouse = ROOT.forCatalog("cat");
        assertThat(warehouse.location()).isEqualTo("file:/w/cat");
        assertThat(warehouse.namespaceLocation(List.of())).isEqualTo("file:/w/cat");
        assertThat(warehouse.namespaceLocation(List.of("a", "b/c", "d%"))).isEqualTo("file:/w/cat/a/b%2Fc/d%25");
        assertThat(warehouse.childLocation("file:/w/cat/a/", "t/1")).isEqualTo("file:/w/cat/a/t%2F1");
        // A catalog named by a raw REST prefix stays a segment of the root.
        assertThat(ROOT.forCatalog("..").location()).isEqualTo("file:/w/%2E%2E");
        assertThat(ROOT.forCatalog("a/b").location()).isEqualTo("file:/w/a%2Fb");
        assertThat(Locations.isInside(ROOT.forCatalog("..").location(), "file:/w"))
                .isTrue();
    }

    @Test
    void clientLocationsOutsideAreAllowedByDefaultButNeverWithADotSegment() {
        Warehouse warehouse = ROOT.forCatalog("cat");
        assertThat(warehouse.external()).isEqualTo(ExternalLocations.ALLOWED);
        assertThat(warehouse.check("s3://bucket/t/", Warehouse.LOCATION)).isEqualTo("s3://bucket/t");
        assertThat(warehouse.check("file:/elsewhere/t", Warehouse.LOCATION)).isEqualTo("file:/elsewhere/t");
        assertThatThrownBy(() -> warehouse.check("file:/w/cat/ns/../../../esc", Warehouse.LOCATION))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LOCATION))
                .hasMessage("Invalid location: it has a '.' or '..' path segment");
    }

    @Test
    void withExternalLocationsRefusedEveryLocationMustBeInside() {
        Warehouse warehouse = STRICT.forCatalog("cat");
        assertThat(warehouse.check("file:///w/cat/ns/t", Warehouse.LOCATION)).isEqualTo("file:///w/cat/ns/t");
        for (String outside : List.of("file:/w/other/t", "file:/w/cat2/t", "s3://bucket/w/cat/t", "/elsewhere")) {
            assertThatThrownBy(() -> warehouse.check(outside, Warehouse.METADATA_FILE))
                    .as(outside)
                    .isInstanceOfSatisfying(CatalogException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_LOCATION);
                        assertThat(e.context())
                                .containsEntry("field", "metadata file")
                                .containsEntry("catalog", "cat")
                                .doesNotContainValue(outside);
                    })
                    .hasMessage("Invalid location: it is outside the catalog's warehouse, and this server keeps"
                            + " every location inside it (warehouse.allow-external-locations)");
        }
    }

    @Test
    void directoriesMadeForAFailedOperationAreRemovedIfStillEmpty() throws IOException {
        Path existing = Files.createDirectories(directory.resolve("wh"));
        Directories made = Directories.make(LocalFileIO.location(existing.resolve("a/b/c")));
        assertThat(existing.resolve("a/b/c")).isDirectory();
        made.removeEmpty();
        assertThat(existing).isDirectory();
        assertThat(existing.resolve("a")).doesNotExist();

        // A directory another operation wrote into since stays, and so do its parents.
        Directories first = Directories.make(LocalFileIO.location(existing.resolve("x/y")));
        Files.writeString(existing.resolve("x/other.txt"), "kept");
        first.removeEmpty();
        assertThat(existing.resolve("x/y")).doesNotExist();
        assertThat(existing.resolve("x/other.txt")).exists();

        // What a file write will make: its missing parents.
        String file = LocalFileIO.location(existing.resolve("t/metadata/00000-x.metadata.json"));
        Directories byWrite = Directories.madeByWriting(file);
        new LocalFileIO().newOutputFile(file).create().close();
        new LocalFileIO().deleteFile(file);
        byWrite.removeEmpty();
        assertThat(existing.resolve("t")).doesNotExist();

        // Object stores have no directories.
        assertThat(Directories.make("s3://bucket/t").isEmpty()).isTrue();
    }
}
