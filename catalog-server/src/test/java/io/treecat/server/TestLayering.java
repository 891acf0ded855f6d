package io.treecat.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;
import org.junit.jupiter.api.Test;

/**
 * The arrows between the modules (docs/architecture.md): the core knows nothing above it, the
 * lakehouse no wire framework and no adapter, adapters not each other, and only the lakehouse
 * writes lake objects. Checked here because this module sees every other one.
 */
class TestLayering {
    private static final JavaClasses TREECAT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.treecat");

    private static final String CORE = "io.treecat.core..";
    private static final String LAKEHOUSE = "io.treecat.lakehouse..";
    private static final String ICEBERG_REST = "io.treecat.rest.iceberg..";
    private static final String NATIVE_HTTP = "io.treecat.rest.nativeapi..";
    private static final String HMS = "io.treecat.hms..";
    private static final String GRPC = "io.treecat.grpc..";
    private static final String SERVER = "io.treecat.server..";
    private static final String REPLICATION = "io.treecat.replication..";

    @Test
    void theCoreImportsNothingAboveIt() {
        noClasses()
                .that()
                .resideInAPackage(CORE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(LAKEHOUSE, ICEBERG_REST, NATIVE_HTTP, HMS, GRPC, SERVER, REPLICATION)
                .check(TREECAT);
    }

    @Test
    void replicationKnowsOnlyTheCore() {
        noClasses()
                .that()
                .resideInAPackage(REPLICATION)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(LAKEHOUSE, ICEBERG_REST, NATIVE_HTTP, HMS, GRPC, SERVER)
                .check(TREECAT);
    }

    @Test
    void theLakehouseImportsNoAdapterAndNoWireFramework() {
        noClasses()
                .that()
                .resideInAPackage(LAKEHOUSE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        ICEBERG_REST,
                        NATIVE_HTTP,
                        HMS,
                        GRPC,
                        SERVER,
                        "io.dropwizard..",
                        "jakarta.ws.rs..",
                        "org.glassfish..",
                        "io.grpc..",
                        "org.apache.thrift..",
                        "org.apache.hadoop.hive..",
                        "org.apache.iceberg.rest..")
                .check(TREECAT);
    }

    @Test
    void adaptersDoNotImportEachOther() {
        noClasses()
                .that()
                .resideInAnyPackage(ICEBERG_REST, NATIVE_HTTP)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(HMS, GRPC, SERVER)
                .check(TREECAT);
        noClasses()
                .that()
                .resideInAPackage(HMS)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ICEBERG_REST, NATIVE_HTTP, GRPC, SERVER)
                .check(TREECAT);
        noClasses()
                .that()
                .resideInAPackage(GRPC)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ICEBERG_REST, NATIVE_HTTP, HMS, SERVER)
                .check(TREECAT);
    }

    @Test
    void onlyTheLakehouseWritesLakeObjects() {
        noClasses()
                .that()
                .resideInAnyPackage(ICEBERG_REST, HMS)
                .should()
                .dependOnClassesThat()
                .belongToAnyOf(WriteOp.class, WriteSet.class)
                .orShould()
                .callMethod(CatalogService.class, "commit", WriteSet.class)
                .orShould()
                .callMethod(CatalogService.class, "commit", io.treecat.core.txn.TransactionId.class, WriteSet.class)
                .orShould()
                .callMethod(
                        CatalogService.class,
                        "begin",
                        io.treecat.core.txn.TransactionMode.class,
                        io.treecat.core.service.ReadPoint.class)
                .check(TREECAT);
    }

    /**
     * Resources, providers and the wiring ({@code IcebergRest}) sit at the top of the REST adapter;
     * so do its request and response filters, which answer at the HTTP level with the error table.
     */
    @Test
    void lowLevelRestClassesDoNotReachUpToResources() {
        noClasses()
                .that()
                .resideInAPackage(ICEBERG_REST)
                .and()
                .areNotAnnotatedWith(Path.class)
                .and()
                .areNotAnnotatedWith(Provider.class)
                .and()
                .doNotHaveSimpleName("IcebergRest")
                .and()
                .areNotAssignableTo(ContainerRequestFilter.class)
                .and()
                .areNotAssignableTo(ContainerResponseFilter.class)
                .should()
                .dependOnClassesThat()
                .areAnnotatedWith(Path.class)
                .orShould()
                .dependOnClassesThat()
                .haveSimpleName("IcebergErrors")
                .check(TREECAT);
    }
}
