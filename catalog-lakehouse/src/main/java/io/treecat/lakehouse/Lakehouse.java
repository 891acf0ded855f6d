package io.treecat.lakehouse;

import static java.util.Objects.requireNonNull;

import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.model.LakeNames;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.util.function.Supplier;

/**
 * What every adapter's lake operations run on, built once by the server and handed to each adapter:
 * the one transaction runner, where each catalog's files live, who may do what (the runner already
 * checks every operation with {@code authorizer}; it is here for the adapters' own checks that run
 * outside a transaction), and the rule new names pass.
 */
public record Lakehouse(TransactionRunner runner, Warehouses warehouses, Authorizer authorizer, LakeNames names) {
    public Lakehouse {
        requireNonNull(runner, "runner is null");
        requireNonNull(warehouses, "warehouses is null");
        requireNonNull(authorizer, "authorizer is null");
        requireNonNull(names, "names is null");
    }

    /** A lakehouse with the default name rule ({@link LakeNames#DEFAULT}). */
    public Lakehouse(TransactionRunner runner, Warehouses warehouses, Authorizer authorizer) {
        this(runner, warehouses, authorizer, LakeNames.DEFAULT);
    }

    /** The same lakehouse, its commits logged as coming from {@code interfaceName} ({@code rest}, {@code hms}). */
    public Lakehouse forInterface(String interfaceName) {
        return new Lakehouse(runner.forInterface(interfaceName), warehouses, authorizer, names);
    }

    /** The lakehouse over {@code service} (looked up per operation: the server opens it after wiring). */
    public static Lakehouse of(Supplier<CatalogService> service, Warehouses warehouses, Authorizer authorizer) {
        return of(service, warehouses, authorizer, LakeNames.DEFAULT);
    }

    public static Lakehouse of(
            Supplier<CatalogService> service, Warehouses warehouses, Authorizer authorizer, LakeNames names) {
        return new Lakehouse(new TransactionRunner(service, authorizer), warehouses, authorizer, names);
    }
}
