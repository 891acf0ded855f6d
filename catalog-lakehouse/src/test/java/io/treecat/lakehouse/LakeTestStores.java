package io.treecat.lakehouse;

import io.treecat.core.service.CatalogMetrics;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.lakehouse.model.LakeObjectValidator;
import java.nio.file.Path;
import java.time.Clock;

/** A real RocksDB-backed catalog with the lake validator installed, as the server opens it. */
public final class LakeTestStores {
    private LakeTestStores() {}

    public static CatalogService open(Path directory) {
        return new CatalogService(
                VersionedTree.open(RocksKvStore.open(directory, RocksStoreOptions.defaults())),
                TransactionConfig.defaults(),
                Clock.systemUTC(),
                CatalogMetrics.NONE,
                new LakeObjectValidator());
    }
}
