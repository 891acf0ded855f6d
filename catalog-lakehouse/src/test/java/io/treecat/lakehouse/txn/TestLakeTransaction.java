package io.treecat.lakehouse.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.model.NamespaceEntry;
import io.treecat.lakehouse.model.ObjectType;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Lake objects go in as records: what an adapter stages is what the codec encodes. */
class TestLakeTransaction {
    private static final ObjectPath CATALOG = ObjectPath.of("lake");
    private static final ObjectPath SALES = ObjectPath.of("lake", "sales");

    @TempDir
    Path directory;

    private CatalogService service;
    private TransactionRunner runner;

    @BeforeEach
    void open() {
        service = LakeTestStores.open(directory);
        runner = new TransactionRunner(() -> service, Authorizer.allowAll());
    }

    @AfterEach
    void close() {
        service.close();
    }

    private Access access() {
        return Access.of(Principal.ANONYMOUS, Action.CREATE_NAMESPACE, SALES);
    }

    @Test
    void addUpdateAndRemoveStoreTheRecordsEncoding() {
        runner.write(access(), txn -> {
            txn.add(CATALOG, CatalogEntry.of("file:/w/lake"));
            txn.add(SALES, NamespaceEntry.of(Map.of("owner", "bob")));
            return null;
        });
        runner.write(access(), txn -> {
            txn.update(SALES, NamespaceEntry.of(Map.of("owner", "eve")));
            return null;
        });

        Optional<CatalogObject> sales = service.get(SALES, ReadPoint.LATEST);
        assertThat(sales)
                .map(CatalogObject::value)
                .contains(NamespaceEntry.of(Map.of("owner", "eve")).encode());
        assertThat(ObjectType.NAMESPACE.isTypeOf(sales)).isTrue();

        runner.write(access(), txn -> {
            txn.remove(CATALOG);
            return null;
        });
        assertThat(service.get(SALES, ReadPoint.LATEST)).isEmpty();
    }

    @Test
    void addsBelowSeesWhatThisTransactionStaged() {
        runner.write(access(), txn -> {
            txn.add(CATALOG, CatalogEntry.of("file:/w/lake"));
            assertThat(txn.addsBelow(ObjectPath.of("lake"))).isFalse();
            txn.add(SALES, NamespaceEntry.of(Map.of()));
            assertThat(txn.addsBelow(ObjectPath.of("lake"))).isTrue();
            assertThat(txn.addsBelow(SALES)).isFalse();
            return null;
        });
    }
}
