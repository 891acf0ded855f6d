package io.treecat.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;

/** {@code storage.*}: where RocksDB keeps the tree, and its tuning. */
public final class StorageConfig {
    @NotEmpty
    @JsonProperty("data-dir")
    private String dataDir = "data";

    @Valid
    @NotNull
    @JsonProperty("rocksdb")
    private RocksDb rocksdb = new RocksDb();

    public Path dataDir() {
        return Path.of(dataDir);
    }

    public RocksDb rocksdb() {
        return rocksdb;
    }

    /** {@code storage.rocksdb.*}; the defaults are core's {@link RocksStoreOptions#defaults()}. */
    public static final class RocksDb {
        @NotNull
        @JsonProperty("block-cache-size")
        private DataSize blockCacheSize = DataSize.mebibytes(256);

        @NotNull
        @JsonProperty("write-buffer-size")
        private DataSize writeBufferSize = DataSize.mebibytes(64);

        @Min(1)
        @Max(64)
        @JsonProperty("background-jobs")
        private int backgroundJobs = 2;

        public RocksStoreOptions toOptions() {
            return new RocksStoreOptions(blockCacheSize.toBytes(), writeBufferSize.toBytes(), backgroundJobs);
        }
    }
}
