package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Clients configured {@code io-impl=io.treecat.rest.iceberg.LocalFileIO} before the class moved; Iceberg still loads it by that name. */
class TestLocalFileIOName {
    @TempDir
    Path directory;

    @Test
    void theOldNameLoadsAWorkingFileIO() throws Exception {
        try (FileIO io = CatalogUtil.loadFileIO("io.treecat.rest.iceberg.LocalFileIO", Map.of(), null)) {
            String location =
                    directory.resolve("metadata/00000-x.metadata.json").toUri().toString();
            try (PositionOutputStream out = io.newOutputFile(location).create()) {
                out.write("{}".getBytes(StandardCharsets.UTF_8));
            }

            assertThat(io).isInstanceOf(io.treecat.lakehouse.storage.LocalFileIO.class);
            assertThat(Files.readString(directory.resolve("metadata/00000-x.metadata.json")))
                    .isEqualTo("{}");
        }
    }
}
