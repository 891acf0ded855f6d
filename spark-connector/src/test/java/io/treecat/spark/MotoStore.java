package io.treecat.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * moto's server ({@code moto[server]} from PyPI, in a venv under {@code target/}) on a free loopback port: S3, STS and
 * IAM in one process, with IAM checks on, so only a valid key with an allowing policy reads or writes. Seeded by
 * catalog-server's {@code src/test/python/moto_setup.py} (the same seeding as its VendedCredentialsIT): the catalog's
 * admin user and key, a role allowed {@code s3:*} that vended credentials come from, and the buckets.
 */
final class MotoStore implements AutoCloseable {
    /** The moto release catalog-server's tests pin. */
    private static final String MOTO = "moto[server]==5.2.5";
    /** The calls moto_setup.py makes before it has a key; every later request is checked. */
    private static final String UNCHECKED_CALLS = "3";

    private static final String ROLE = "treecat-vended";

    private final Process process;
    private final int port;
    private final String accessKeyId;
    private final String secretAccessKey;
    private final String roleArn;
    private final S3Client admin;
    private final Path recording;

    MotoStore(Path scratch, String... buckets) throws Exception {
        Path python = PythonVenvs.python("moto-venv", MOTO, scratch);
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path log = scratch.resolve("moto.log");
        ProcessBuilder builder = new ProcessBuilder(
                        python.resolveSibling("moto_server").toString(),
                        "-H",
                        "127.0.0.1",
                        "-p",
                        Integer.toString(port))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("INITIAL_NO_AUTH_ACTION_COUNT", UNCHECKED_CALLS);
        // Where moto's request recorder writes, once a test starts it (startRecording); off until then.
        recording = scratch.resolve("moto-recording.jsonl");
        builder.environment().put("MOTO_RECORDER_FILEPATH", recording.toString());
        process = builder.start();
        try {
            awaitListening(log);
            List<String> setup =
                    new ArrayList<>(List.of(python.toString(), setupScript().toString(), endpoint(), ROLE));
            setup.addAll(List.of(buckets));
            JsonNode keys = new ObjectMapper().readTree(PythonVenvs.run(setup, scratch, "moto_setup.py"));
            accessKeyId = keys.get("access_key_id").asText();
            secretAccessKey = keys.get("secret_access_key").asText();
            roleArn = keys.get("role_arn").asText();
        } catch (Exception | AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
        admin = S3Client.builder()
                .endpointOverride(URI.create(endpoint()))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .httpClientBuilder(ApacheHttpClient.builder())
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey)))
                .build();
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** The catalog's own key id (an admin user's): for the TreeCat server's environment only. */
    String accessKeyId() {
        return accessKeyId;
    }

    String secretAccessKey() {
        return secretAccessKey;
    }

    /** The role vended credentials come from. */
    String roleArn() {
        return roleArn;
    }

    /**
     * Starts a TreeCat server whose catalog {@code catalog} has its warehouse on this store (bucket {@code bucket}): the
     * catalog's own keys in the server's environment only, and the role vended credentials are assumed from (STS is
     * moto's, at the store's endpoint, the default).
     */
    TreeCatServerProcess startVendingServer(Path directory, String catalog, String bucket) throws Exception {
        String catalogs = String.join(
                "\n",
                "  catalogs:",
                "    " + catalog + ":",
                "      location: s3://" + bucket + "/warehouse",
                "      properties:",
                "        s3.endpoint: " + endpoint(),
                "        s3.path-style-access: \"true\"",
                "        client.region: us-east-1",
                "      credentials:",
                "        source: static",
                "        access-key-id-env: LAKE_S3_ACCESS_KEY_ID",
                "        secret-access-key-env: LAKE_S3_SECRET_ACCESS_KEY",
                "        role-arn: " + roleArn);
        return TreeCatServerProcess.start(
                directory,
                catalogs,
                Map.of("LAKE_S3_ACCESS_KEY_ID", accessKeyId, "LAKE_S3_SECRET_ACCESS_KEY", secretAccessKey),
                List.of());
    }

    /**
     * Starts moto's request recorder (its {@code moto-api}): from now on every request moto receives, with its method,
     * URL and headers (so the key id each request was signed with), is written to a file, until
     * {@link #stopRecording()}.
     */
    void startRecording() throws IOException, InterruptedException {
        motoApi("start-recording");
    }

    void stopRecording() throws IOException, InterruptedException {
        motoApi("stop-recording");
    }

    /** The requests recorded so far, each moto's JSON entry ({@code method}, {@code url}, {@code headers}, …). */
    List<JsonNode> recordedRequests() throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> requests = new ArrayList<>();
        if (Files.exists(recording)) {
            for (String line : Files.readAllLines(recording, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    requests.add(json.readTree(line));
                }
            }
        }
        return requests;
    }

    private void motoApi(String action) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(endpoint() + "/moto-api/recorder/" + action))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    "moto-api " + action + " answered " + response.statusCode() + ": " + response.body());
        }
    }

    /** Every object key in {@code bucket} under {@code prefix}, listed with the admin key. */
    List<String> keys(String bucket, String prefix) {
        List<String> keys = new ArrayList<>();
        for (S3Object object : admin.listObjectsV2Paginator(ListObjectsV2Request.builder()
                        .bucket(bucket)
                        .prefix(prefix)
                        .build())
                .contents()) {
            keys.add(object.key());
        }
        return keys;
    }

    @Override
    public void close() throws InterruptedException {
        admin.close();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private void awaitListening(Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("moto_server exited:\n" + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new IllegalStateException("moto_server not listening after 60 s:\n" + Files.readString(log));
    }

    private static Path setupScript() {
        Path script = Path.of("../catalog-server/src/test/python/moto_setup.py")
                .toAbsolutePath()
                .normalize();
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("catalog-server's " + script + " is missing");
        }
        return script;
    }
}
