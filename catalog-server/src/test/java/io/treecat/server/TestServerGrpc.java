package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.QueryResults;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one process serves gRPC and HTTP over the same tree, and reports both listeners' health. */
class TestServerGrpc {
  @TempDir Path directory;

  @Test
  void grpcAndHttpSeeOneTreeAndBothListenersAreHealthy() throws Exception {
    try (TreeCatTestServer server = new TreeCatTestServer(directory);
        TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
      client.commit(WriteSet.of(new WriteOp.Add(ObjectPath.of("db"), ObjectKind.INNER, BsonDocument.parse("{via: 'grpc'}"))));
      Reply viaHttp = server.get("/treecat/v1/objects?path=%2Fdb");
      assertThat(viaHttp.status()).isEqualTo(200);
      assertThat(viaHttp.json().get("value").get("via").asText()).isEqualTo("grpc");

      assertThat(server.post("/treecat/v1/commit", "{\"writes\": [{\"op\": \"add\", \"path\": \"/db/t\", \"kind\": \"leaf\", \"value\": {\"via\": \"http\"}}]}").status())
          .isEqualTo(200);
      List<String> seen = new ArrayList<>();
      try (QueryResults results = client.query("/[obj_id='db']/*")) {
        results.forEachRemaining((CatalogObject object) -> seen.add(object.path() + " " + object.value().getString("via").getValue()));
      }
      assertThat(seen).containsExactly("/db/t http");

      Reply health = server.admin("/healthcheck");
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().get("listener-grpc").get("healthy").asBoolean()).isTrue();
      assertThat(health.json().get("listener-rest").get("healthy").asBoolean()).isTrue();
      assertThat(health.json().get("rocksdb").get("healthy").asBoolean()).isTrue();
    }
  }
}
