package io.treecat.server.admin;

import static java.util.Objects.requireNonNull;

import com.codahale.metrics.health.HealthCheck;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import java.util.function.Supplier;

/**
 * Healthy when the store answers a real read: the snapshot list is a scan of RocksDB's meta key
 * space, so a closed, failed or corrupt store fails here, not just a dead JVM.
 */
public final class CatalogHealthCheck extends HealthCheck {
    private final Supplier<CatalogService> catalog;

    public CatalogHealthCheck(Supplier<CatalogService> catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @Override
    protected Result check() {
        CatalogService service = catalog.get();
        long lastVid = service.lastVid();
        int snapshots = service.listSnapshots().size();
        service.get(ObjectPath.ROOT, ReadPoint.LATEST);
        return Result.builder()
                .healthy()
                .withMessage("RocksDB answers reads")
                .withDetail("lastVid", lastVid)
                .withDetail("snapshots", snapshots)
                .build();
    }
}
