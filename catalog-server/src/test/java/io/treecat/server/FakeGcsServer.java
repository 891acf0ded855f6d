package io.treecat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * fake-gcs-server (github.com/fsouza/fake-gcs-server), a GCS emulator serving the JSON API that Google's Java client
 * and Iceberg's GCSFileIO use, installed with {@code go install} into {@code target/emulators} and run on loopback
 * with an in-memory backend and no authentication.
 */
final class FakeGcsServer implements AutoCloseable {
    static final String VERSION = "v1.56.1";
    static final String PROJECT = "treecat-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final EmulatorProcess process;
    private final int port;

    private FakeGcsServer(EmulatorProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    static FakeGcsServer start() throws Exception {
        EmulatorProcess.assumeTool("go");
        Path home = EmulatorProcess.home("fake-gcs-server-" + VERSION);
        Path binary = home.resolve("bin").resolve("fake-gcs-server");
        if (!Files.isExecutable(binary)) {
            EmulatorProcess.install(
                    home,
                    List.of("go", "install", "github.com/fsouza/fake-gcs-server@" + VERSION),
                    Map.of("GOBIN", home.resolve("bin").toString()));
        }
        int port = EmulatorProcess.freePort();
        String address = "127.0.0.1:" + port;
        EmulatorProcess process = EmulatorProcess.start(
                home,
                List.of(
                        binary.toString(),
                        "-scheme",
                        "http",
                        "-host",
                        "127.0.0.1",
                        "-port",
                        String.valueOf(port),
                        "-backend",
                        "memory",
                        "-public-host",
                        address,
                        "-external-url",
                        "http://" + address,
                        "-log-level",
                        "warn"),
                URI.create("http://" + address + "/storage/v1/b"));
        return new FakeGcsServer(process, port);
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    void createBucket(String bucket) throws Exception {
        HttpResponse<String> response = EmulatorProcess.HTTP.send(
                HttpRequest.newBuilder(URI.create(endpoint() + "/storage/v1/b?project=" + PROJECT))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"" + bucket + "\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Bucket not created: " + response.statusCode() + " " + response.body());
        }
    }

    /** Every object name in {@code bucket}. */
    List<String> keys(String bucket) throws Exception {
        List<String> keys = new ArrayList<>();
        String pageToken = null;
        do {
            String uri = endpoint() + "/storage/v1/b/" + bucket + "/o"
                    + (pageToken == null ? "" : "?pageToken=" + URLEncoder.encode(pageToken, StandardCharsets.UTF_8));
            HttpResponse<String> response = EmulatorProcess.HTTP.send(
                    HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
            JsonNode page = JSON.readTree(response.body());
            for (JsonNode item : page.path("items")) {
                keys.add(item.get("name").asText());
            }
            pageToken =
                    page.hasNonNull("nextPageToken") ? page.get("nextPageToken").asText() : null;
        } while (pageToken != null);
        return keys;
    }

    @Override
    public void close() throws Exception {
        process.close();
    }
}
