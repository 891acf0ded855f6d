package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.QuerySpec;
import io.treecat.grpc.client.RemoteTransaction;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.server.TreeCatTestServer.Reply;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one process serves gRPC and HTTP over the same tree, and reports both listeners' health. */
class TestServerGrpc {
    @TempDir
    Path directory;

    @Test
    void grpcAndHttpSeeOneTreeAndBothListenersAreHealthy() throws Exception {
        try (TreeCatTestServer server = new TreeCatTestServer(directory);
                TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            client.commit(WriteSet.of(
                    new WriteOp.Add(ObjectPath.of("db"), ObjectKind.INNER, BsonDocument.parse("{via: 'grpc'}"))));
            Reply viaHttp = server.get("/treecat/v1/objects?path=%2Fdb");
            assertThat(viaHttp.status()).isEqualTo(200);
            assertThat(viaHttp.json().get("value").get("via").asText()).isEqualTo("grpc");

            assertThat(server.post(
                                    "/treecat/v1/commit",
                                    "{\"writes\": [{\"op\": \"add\", \"path\": \"/db/t\", \"kind\": \"leaf\", \"value\": {\"via\": \"http\"}}]}")
                            .status())
                    .isEqualTo(200);
            List<String> seen = new ArrayList<>();
            try (QueryResults results = client.query("/[obj_id='db']/*")) {
                results.forEachRemaining((CatalogObject object) -> seen.add(
                        object.path() + " " + object.value().getString("via").getValue()));
            }
            assertThat(seen).containsExactly("/db/t http");

            // A large stream through the whole server: 100,000 leaves bulk-loaded, then streamed back.
            StringBuilder lines = new StringBuilder();
            lines.append("{\"path\": \"/big\", \"kind\": \"inner\"}\n");
            for (int i = 0; i < 100_000; i++) {
                lines.append("{\"path\": \"/big/f")
                        .append(i)
                        .append("\", \"kind\": \"leaf\", \"value\": {\"n\": ")
                        .append(i)
                        .append("}}\n");
            }
            assertThat(client.bulkLoad(new StringReader(lines.toString()), 25_000, sent -> {})
                            .records())
                    .isEqualTo(100_001);
            long streamed = 0;
            long sum = 0;
            try (QueryResults results = client.query("/[obj_id='big']/*")) {
                while (results.hasNext()) {
                    sum += results.next().value().getInt32("n").getValue();
                    streamed++;
                }
            }
            assertThat(streamed).isEqualTo(100_000);
            assertThat(sum).isEqualTo(99_999L * 100_000 / 2);

            // A conflict comes back as ABORTED with the conflict's details.
            RemoteTransaction reader = client.begin(TransactionMode.READ_WRITE);
            try (QueryResults results = reader.query(QuerySpec.of("/[obj_id='db']/[via = 'http']"))) {
                results.forEachRemaining(object -> {});
            }
            client.commit(WriteSet.of(
                    new WriteOp.Add(ObjectPath.of("db", "u"), ObjectKind.LEAF, BsonDocument.parse("{via: 'http'}"))));
            assertThatThrownBy(() -> reader.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("db", "v"), ObjectKind.LEAF, new BsonDocument()))))
                    .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(Status.Code.ABORTED);
                        assertThat(e.context())
                                .containsEntry("conflictingPath", "/db/u")
                                .containsEntry("predicate", "[via = 'http']");
                    });

            Reply health = server.admin("/healthcheck");
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.json().get("listener-grpc").get("healthy").asBoolean())
                    .isTrue();
            assertThat(health.json().get("listener-rest").get("healthy").asBoolean())
                    .isTrue();
            assertThat(health.json().get("rocksdb").get("healthy").asBoolean()).isTrue();
        }
    }
}
