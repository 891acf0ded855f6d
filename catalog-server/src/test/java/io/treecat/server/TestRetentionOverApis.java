package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Status;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.client.TreeCatClientException;
import io.treecat.server.TreeCatTestServer.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention on a real server: the collector run through the admin task, then a read below the horizon
 * on every API that reads by version (the native JSON mirror, gRPC, Iceberg REST's read-only prefixes)
 * is a clear VERSION_EXPIRED naming the oldest readable version, never an answer; the retained
 * versions read as before; the metrics show the horizon; pause and resume work.
 */
class TestRetentionOverApis {
    @TempDir
    Path directory;

    private final HttpClient http = HttpClient.newHttpClient();

    private String admin(TreeCatTestServer server, String method, String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private long gauge(TreeCatTestServer server, String name) throws Exception {
        JsonNode metrics = TreeCatTestServer.JSON.readTree(admin(server, "GET", "/metrics"));
        return metrics.get("gauges").get(name).get("value").asLong();
    }

    @Test
    void readsBelowTheHorizonAreVersionExpiredOnEveryApi() throws Exception {
        try (TreeCatTestServer server = new TreeCatTestServer(
                        directory,
                        ConfigOverride.config("retention.keep-for", "0 seconds"),
                        ConfigOverride.config("retention.keep-versions", "2"),
                        ConfigOverride.config("retention.gc-interval", "1 hour"));
                TreeCatClient client = TreeCatClient.connect(server.grpcTarget())) {
            // The HMS listener made the catalog "warehouse" with its database "default" at start; then /notes is
            // written a few times, each write a vid.
            long old = client.commit(WriteSet.of(
                            new WriteOp.Add(ObjectPath.of("notes"), ObjectKind.INNER, BsonDocument.parse("{n: 1}"))))
                    .vid();
            Reply oldRead = server.get("/treecat/v1/objects?path=%2Fnotes&vid=" + old);
            assertThat(oldRead.status()).isEqualTo(200);
            for (int i = 2; i <= 4; i++) {
                client.commit(WriteSet.of(new WriteOp.Update(
                        ObjectPath.of("notes"), ObjectKind.INNER, BsonDocument.parse("{n: " + i + "}"))));
            }
            long newest = client.commit(WriteSet.of(
                            new WriteOp.Update(ObjectPath.of("notes"), ObjectKind.INNER, BsonDocument.parse("{n: 5}"))))
                    .vid();

            // The HMS notification log pins the vid its event index has counted up to (docs/hms-thrift.md, "Retention
            // and the ids"); its indexer counts each commit as it is published, so a pass may have to wait for it.
            long horizon = newest - 1;
            String pass = admin(server, "POST", "/tasks/gc-run");
            for (int attempt = 0; attempt < 100 && gauge(server, "treecat.gc.horizon") < horizon; attempt++) {
                Thread.sleep(20);
                pass = admin(server, "POST", "/tasks/gc-run");
            }
            assertThat(pass).contains("Pass completed: horizon " + horizon);
            assertThat(gauge(server, "treecat.gc.horizon")).isEqualTo(horizon);
            assertThat(gauge(server, "treecat.gc.lag")).isEqualTo(1);
            assertThat(gauge(server, "treecat.gc.keys-reclaimed")).isGreaterThan(0);
            assertThat(gauge(server, "treecat.store.sst-files-size")).isGreaterThanOrEqualTo(0);
            String oldestTime = server.get("/treecat/v1/commits?since=" + horizon + "&until=" + horizon)
                    .json()
                    .get("commits")
                    .get(0)
                    .get("commitTime")
                    .asText();
            String expected = "Version " + old + " has expired: the oldest readable version is " + horizon
                    + ", committed at " + oldestTime;

            // The native JSON mirror.
            Reply expired = server.get("/treecat/v1/objects?path=%2Fnotes&vid=" + old);
            assertThat(expired.status()).isEqualTo(404);
            assertThat(expired.error().get("type").asText()).isEqualTo("VERSION_EXPIRED");
            assertThat(expired.error().get("message").asText()).isEqualTo(expected);
            Reply query = server.get("/treecat/v1/query?q=" + encode("/*") + "&vid=" + old);
            assertThat(query.status()).as(query.body()).isEqualTo(404);
            assertThat(query.error().get("type").asText()).isEqualTo("VERSION_EXPIRED");
            Reply retained = server.get("/treecat/v1/objects?path=%2Fnotes&vid=" + horizon);
            assertThat(retained.status()).isEqualTo(200);
            assertThat(retained.json().get("value").get("n").asInt()).isEqualTo(4);

            // gRPC: NOT_FOUND with the code and the same message.
            assertThatThrownBy(() -> client.get(ObjectPath.of("notes"), ReadPoint.vid(old)))
                    .isInstanceOfSatisfying(TreeCatClientException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(Status.Code.NOT_FOUND);
                        assertThat(e.errorCode()).contains("VERSION_EXPIRED");
                        assertThat(e.getMessage()).contains(expected);
                        assertThat(e.context()).containsEntry("oldestVid", String.valueOf(horizon));
                    });
            assertThat(client.get(ObjectPath.of("notes"), ReadPoint.vid(horizon)))
                    .isPresent();

            // The CLI (over gRPC): one line on standard error, exit code 1.
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int exit = new TreeCatApplication()
                    .runCommandLine(
                            new String[] {"get", "/notes", "--vid", String.valueOf(old), "--server", server.grpcTarget()
                            },
                            out,
                            err);
            assertThat(exit).isEqualTo(1);
            assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                    .startsWith("treecat: VERSION_EXPIRED: " + expected);

            // Iceberg REST's read-only prefixes: 404 with an Iceberg error body.
            Reply atVid = server.get("/v1/" + encode("warehouse@" + old) + "/namespaces");
            assertThat(atVid.status()).isEqualTo(404);
            assertThat(atVid.error().get("message").asText()).isEqualTo(expected);
            assertThat(atVid.error().get("code").asInt()).isEqualTo(404);
            Reply atTime = server.get("/v1/" + encode("warehouse@time=2000-01-01T00:00:00Z") + "/namespaces");
            assertThat(atTime.status()).isEqualTo(404);
            assertThat(atTime.error().get("message").asText())
                    .isEqualTo("Time 2000-01-01T00:00:00Z is before the oldest readable version " + horizon
                            + ", committed at " + oldestTime);
            assertThat(server.get("/v1/" + encode("warehouse@" + horizon) + "/namespaces")
                            .status())
                    .isEqualTo(200);

            // Pause and resume through the admin tasks; the gauge follows.
            admin(server, "POST", "/tasks/gc-pause");
            assertThat(gauge(server, "treecat.gc.paused")).isEqualTo(1);
            assertThat(admin(server, "POST", "/tasks/gc-run")).contains("Pass stopped (paused)");
            admin(server, "POST", "/tasks/gc-resume");
            assertThat(gauge(server, "treecat.gc.paused")).isZero();
            // The server is still up and the newest version reads.
            assertThat(server.get("/treecat/v1/objects?path=%2Fnotes")
                            .json()
                            .get("value")
                            .get("n")
                            .asInt())
                    .isEqualTo(5);
        }
    }
}
