package io.treecat.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Keeps the arrows pointing one way: core knows nothing above it (the lakehouse, adapters, frameworks), and only one package knows RocksDB. */
class TestArchitecture {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.treecat.core");

    @Test
    void onlyTheRocksDbPackageImportsRocksDb() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.treecat.core.storage.rocksdb..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.rocksdb..")
                .check(CORE);
    }

    @Test
    void coreImportsNoFrameworkOrAdapter() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.dropwizard..",
                        "io.grpc..",
                        "org.apache.thrift..",
                        "org.apache.iceberg..",
                        "org.apache.hadoop..",
                        "io.treecat.lakehouse..",
                        "io.treecat.grpc..",
                        "io.treecat.rest..",
                        "io.treecat.hms..",
                        "io.treecat.server..")
                .check(CORE);
    }

    @Test
    void thePlannerAndParserDoNoIo() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.treecat.core.query.parser..",
                        "io.treecat.core.query.plan..",
                        "io.treecat.core.query.tree..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.treecat.core.storage..", "io.treecat.core.version..", "io.treecat.core.query.exec..")
                .check(CORE);
    }
}
