package io.treecat.server;

import static io.treecat.server.TreeCatTestServer.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.ConfigOverride;
import io.grpc.Context;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.grpc.v1.SubscribeRequest;
import io.treecat.server.TreeCatTestServer.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The change feed's JSON long-poll pages ({@code GET /treecat/v1/changes}) on a real server, with a
 * subscriber limit of 2 (shared with gRPC {@code Subscribe}) and {@code feed.max-wait} of 3 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestChangesOverHttp {
    @TempDir
    static Path directory;

    private TreeCatTestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TreeCatTestServer(
                directory,
                ConfigOverride.config("feed.max-subscribers", "2"),
                ConfigOverride.config("feed.max-wait", "3s"));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private long add(String path) {
        Reply reply = server.post(
                "/treecat/v1/commit",
                "{\"writes\": [{\"op\": \"add\", \"path\": \"" + path
                        + "\", \"value\": {\"obj_type\": \"database\"}}]}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json().get("vid").asLong();
    }

    private long newest() {
        Reply reply = server.get("/treecat/v1/changes");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json().get("resumeAfter").asLong();
    }

    private static List<Long> vids(Reply reply) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<Long> vids = new ArrayList<>();
        reply.json().get("commits").forEach(commit -> vids.add(commit.get("vid").asLong()));
        return vids;
    }

    private CompletableFuture<Reply> async(String path) {
        return CompletableFuture.supplyAsync(() -> server.get(path));
    }

    @Test
    void recordsAfterThePositionAreAnsweredAtOnce() {
        long before = newest();
        long first = add("/feed_at_once1");
        long second = add("/feed_at_once2");
        long start = System.nanoTime();
        Reply reply = server.get("/treecat/v1/changes?after=" + before + "&wait=30s&limit=1");
        assertThat(vids(reply)).containsExactly(first);
        assertThat(reply.json().get("resumeAfter").asLong()).isEqualTo(first);
        assertThat(reply.json().get("caughtUp").asBoolean()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        Reply next = server.get("/treecat/v1/changes?after=" + first + "&wait=30s");
        assertThat(vids(next)).containsExactly(second);
        JsonNode commit = next.json().get("commits").get(0);
        assertThat(commit.get("changes").get(0).get("path").asText()).isEqualTo("/feed_at_once2");
        assertThat(commit.get("changes").get(0).get("change").asText()).isEqualTo("added");
    }

    @Test
    void aWaitingPollIsAnsweredByTheNextCommit() throws Exception {
        long before = newest();
        CompletableFuture<Reply> waiting = async("/treecat/v1/changes?after=" + before + "&wait=30s");
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        long vid = add("/feed_woken");
        assertThat(vids(waiting.get(10, TimeUnit.SECONDS))).containsExactly(vid);
    }

    @Test
    void anEmptyPageComesAfterTheWaitAndTheWaitIsCappedByConfig() {
        long before = newest();
        long start = System.nanoTime();
        Reply reply = server.get("/treecat/v1/changes?after=" + before + "&wait=500ms&path=" + encode("/nothing_here"));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(vids(reply)).isEmpty();
        assertThat(reply.json().get("resumeAfter").asLong()).isGreaterThanOrEqualTo(before);
        assertThat(reply.json().get("caughtUp").asBoolean()).isTrue();
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(450));

        start = System.nanoTime();
        Reply capped = server.get("/treecat/v1/changes?after=" + before + "&wait=10m&path=" + encode("/nothing_here"));
        took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(vids(capped)).isEmpty();
        assertThat(took).isBetween(Duration.ofMillis(2900), Duration.ofSeconds(9));
    }

    @Test
    void filtersByPathAndKinds() {
        long before = newest();
        add("/feed_filter_a");
        long b = add("/feed_filter_b");
        assertThat(vids(server.get("/treecat/v1/changes?after=" + before + "&path=" + encode("/feed_filter_b"))))
                .containsExactly(b);
        assertThat(vids(server.get("/treecat/v1/changes?after=" + before + "&kinds=removed,leaf")))
                .isEmpty();
        assertThat(vids(server.get("/treecat/v1/changes?after=" + before + "&kinds=added,inner")))
                .hasSize(2);
    }

    @Test
    void badParametersAre400NamingTheParameter() {
        expectBad("/treecat/v1/changes?after=abc", "after");
        expectBad("/treecat/v1/changes?kinds=added,bogus", "kinds");
        expectBad("/treecat/v1/changes?limit=0", "limit");
        expectBad("/treecat/v1/changes?limit=1001", "limit");
        expectBad("/treecat/v1/changes?wait=-1s", "wait");
        expectBad("/treecat/v1/changes?wait=5h", "wait");
        Reply path = server.get("/treecat/v1/changes?path=no-slash");
        assertThat(path.status()).as(path.body()).isEqualTo(400);
        assertThat(path.error().get("type").asText()).isEqualTo("INVALID_PATH");
        Reply negative = server.get("/treecat/v1/changes?after=-3");
        assertThat(negative.status()).as(negative.body()).isEqualTo(400);
        Reply past = server.get("/treecat/v1/changes?after=99999999");
        assertThat(past.status()).as(past.body()).isEqualTo(404);
        assertThat(past.error().get("type").asText()).isEqualTo("VID_NOT_FOUND");
        assertThat(past.error().get("context").get("newestVid").asLong()).isEqualTo(newest());
    }

    private void expectBad(String path, String parameter) {
        Reply reply = server.get(path);
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        assertThat(reply.error().get("context").get("parameter").asText()).isEqualTo(parameter);
    }

    @Test
    void theExperimentalIcebergEventsRouteIsNotServedByDefault() {
        Reply events = server.post("/v1/warehouse/events", "{}");
        assertThat(events.status()).as(events.body()).isEqualTo(404);
        assertThat(events.error().get("type").asText()).isEqualTo("NotFoundException");
    }

    @Test
    void waitingPollsAndGrpcSubscribersShareTheLimit() throws Exception {
        long before = newest();
        try (TreeCatClient client = TreeCatClient.connect(server.grpcTarget());
                Context.CancellableContext context = Context.current().withCancellation()) {
            assertThat(context.call(() -> client.subscribe(SubscribeRequest.newBuilder()
                                    .setAfterVid(before)
                                    .build())
                            .next()
                            .getCheckpointVid()))
                    .isEqualTo(before);
            CompletableFuture<Reply> waiting =
                    async("/treecat/v1/changes?after=" + before + "&wait=3s&path=" + encode("/nothing_here"));
            Thread.sleep(300);
            Reply refused = server.get("/treecat/v1/changes?after=" + before + "&wait=3s");
            assertThat(refused.status()).as(refused.body()).isEqualTo(429);
            assertThat(refused.error().get("type").asText()).isEqualTo("SUBSCRIBER_LIMIT_REACHED");
            assertThat(refused.error().get("message").asText()).contains("feed.max-subscribers");
            // A request that need not wait takes no place.
            assertThat(server.get("/treecat/v1/changes?after=0&limit=1").status())
                    .isEqualTo(200);
            assertThat(server.admin("/metrics")
                            .json()
                            .get("gauges")
                            .get("treecat.feed.subscribers")
                            .get("value")
                            .asInt())
                    .isEqualTo(2);
            assertThat(vids(waiting.get(10, TimeUnit.SECONDS))).isEmpty();
        }
    }

    @Test
    void stoppingTheServerAnswersAWaitingPollAtOnce(@TempDir Path other) throws Exception {
        TreeCatTestServer stopping = new TreeCatTestServer(other, ConfigOverride.config("feed.max-wait", "60s"));
        CompletableFuture<Reply> waiting;
        long before;
        try {
            Reply now = stopping.get("/treecat/v1/changes");
            before = now.json().get("resumeAfter").asLong();
            waiting = CompletableFuture.supplyAsync(() -> stopping.get("/treecat/v1/changes?wait=60s"));
            Thread.sleep(500);
            assertThat(waiting).isNotDone();
        } finally {
            long start = System.nanoTime();
            stopping.close();
            // The 30 s shutdown grace did not have to run out.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        }
        Reply answered = waiting.get(10, TimeUnit.SECONDS);
        assertThat(vids(answered)).isEmpty();
        assertThat(answered.json().get("resumeAfter").asLong()).isEqualTo(before);
    }
}
