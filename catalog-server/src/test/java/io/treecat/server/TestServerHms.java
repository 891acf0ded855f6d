package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.CreateCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one process serves the HMS Thrift API over the tree the Iceberg REST catalog uses. */
class TestServerHms {
    @TempDir
    Path directory;

    @Test
    void hiveAndIcebergRestSeeOneCatalogAndTheListenerIsHealthy() throws Exception {
        try (TreeCatTestServer server = new TreeCatTestServer(directory)) {
            assertThat(server.post(
                                    "/v1/warehouse/namespaces",
                                    "{\"namespace\": [\"from_rest\"], \"properties\": {\"owner\": \"bob\"}}")
                            .status())
                    .isEqualTo(200);

            TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
            socket.open();
            try {
                ThriftHiveMetastore.Client hive = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
                // The default database Hive clients count on is there from the first start.
                assertThat(hive.get_all_databases()).containsExactly("default", "from_rest");
                assertThat(hive.get_database("@hive#from_rest").getParameters()).containsEntry("owner", "bob");
                Database db = new Database();
                db.setName("from_hive");
                hive.create_database(db);
            } finally {
                socket.close();
            }
            Reply namespaces = server.get("/v1/warehouse/namespaces");
            assertThat(namespaces.status()).isEqualTo(200);
            assertThat(namespaces.json().get("namespaces").toString())
                    .contains("[\"default\"]")
                    .contains("from_hive")
                    .contains("from_rest");

            Reply health = server.admin("/healthcheck");
            assertThat(health.json().get("listener-hms").get("healthy").asBoolean())
                    .isTrue();
        }
    }

    @Test
    void aCatalogMadeOverHmsIsARestPrefixAndARestCatalogIsAnHmsCatalog() throws Exception {
        try (TreeCatTestServer server = new TreeCatTestServer(directory)) {
            assertThat(server.post("/v1/lake2/namespaces", "{\"namespace\": [\"ns\"]}")
                            .status())
                    .isEqualTo(200);
            TSocket socket = new TSocket("127.0.0.1", server.hmsPort());
            socket.open();
            try {
                ThriftHiveMetastore.Client hive = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
                hive.create_catalog(new CreateCatalogRequest(
                        new Catalog("sales", directory.resolve("sales").toUri().toString())));
                assertThat(hive.get_catalogs().getNames()).containsExactly("hive", "lake2", "sales");
                assertThat(hive.get_databases("@lake2#")).containsExactly("ns");
            } finally {
                socket.close();
            }
            Reply namespaces = server.get("/v1/sales/namespaces");
            assertThat(namespaces.status()).isEqualTo(200);
            assertThat(namespaces.json().get("namespaces").toString()).isEqualTo("[[\"default\"]]");
        }
    }
}
