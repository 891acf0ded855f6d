package io.treecat.lakehouse;

import io.treecat.core.service.CatalogMetrics;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.model.LakeObjectValidator;
import io.treecat.lakehouse.txn.TransactionRunner;
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

    /** A store and the runner the adapters would use on it (allow-all); closing it closes the store. */
    public record Lake(CatalogService service, TransactionRunner runner) implements AutoCloseable {
        @Override
        public void close() {
            service.close();
        }
    }

    /** {@link #open} with a runner on it. */
    public static Lake lake(Path directory) {
        CatalogService service = open(directory);
        return new Lake(service, new TransactionRunner(() -> service, Authorizer.allowAll()));
    }
}
