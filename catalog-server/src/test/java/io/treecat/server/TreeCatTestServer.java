package io.treecat.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.server.config.TreeCatConfiguration;
import io.treecat.server.config.TreeCatConfigurationSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;

/**
 * A real TreeCat server on loopback (Jetty, Jersey, RocksDB in a temporary directory) started from
 * the embedded default configuration with ports 0, and a real HTTP client to talk to it.
 */
final class TreeCatTestServer implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    private final DropwizardTestSupport<TreeCatConfiguration> support;
    private final HttpClient http = HttpClient.newHttpClient();

    TreeCatTestServer(Path directory, ConfigOverride... extra) throws Exception {
        this(directory, Map.of(), extra);
    }

    /**
     * @param replacing settings that replace the fixture's own (a second override of the same key does not replace
     *     the first)
     */
    TreeCatTestServer(Path directory, Map<String, String> replacing, ConfigOverride... extra) throws Exception {
        this(directory, TreeCatConfigurationSource.EMBEDDED, replacing, extra);
    }

    /** A server from a configuration file the test wrote (e.g. with a list entry, which overrides cannot add). */
    TreeCatTestServer(Path directory, String configuration, ConfigOverride... extra) throws Exception {
        this(directory, configuration, Map.of(), extra);
    }

    /** @param configuration the configuration file, or {@link TreeCatConfigurationSource#EMBEDDED} */
    TreeCatTestServer(Path directory, String configuration, Map<String, String> replacing, ConfigOverride... extra)
            throws Exception {
        Map<String, String> settings = new java.util.LinkedHashMap<>();
        settings.put("server.applicationConnectors[0].port", "0");
        settings.put("server.applicationConnectors[0].bindHost", "127.0.0.1");
        settings.put("server.adminConnectors[0].port", "0");
        settings.put("server.adminConnectors[0].bindHost", "127.0.0.1");
        settings.put("grpc.port", "0");
        settings.put("grpc.host", "127.0.0.1");
        settings.put("hms.port", "0");
        settings.put("hms.host", "127.0.0.1");
        // Tests that turn auth on keep their HMS listener (unauthenticated until PLAIN SASL);
        // TestListenerBindings checks that a server refuses this without the setting.
        settings.put("hms.allow-unauthenticated", "true");
        settings.put("storage.data-dir", directory.resolve("data").toString());
        settings.put("warehouse.location", directory.resolve("warehouse").toString());
        settings.put("logging.level", "WARN");
        settings.putAll(replacing);
        if (Arrays.stream(extra).anyMatch(override -> override instanceof LogLevel)) {
            // Dropwizard keeps the overrides in a set: of two for one key, either may win.
            settings.remove("logging.level");
        }
        List<ConfigOverride> overrides = new ArrayList<>();
        settings.forEach((key, value) -> overrides.add(ConfigOverride.config(key, value)));
        overrides.addAll(List.of(extra));
        support = new DropwizardTestSupport<>(
                TreeCatApplication.class,
                configuration,
                TreeCatConfigurationSource.withEnvironment(),
                overrides.toArray(ConfigOverride[]::new));
        support.before();
    }

    @Override
    public void close() {
        // A graceful stop that hangs (Jetty waits up to server.shutdownGracePeriod for requests and connections)
        // says why: after STOP_DIAGNOSTICS_AFTER, Jetty's own dump (connectors, endpoints and their idle timeouts,
        // requests in flight) and every thread's stack go to stderr, into the test's report.
        Thread watchdog = new Thread(this::dumpWhileStopping, "treecat-test-stop-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            support.after();
        } catch (RuntimeException e) {
            // The test report's summary line shows only the message: it names what the stop waited for.
            throw new IllegalStateException("The server's stop failed (" + e + "); " + openWhenStopping, e);
        } finally {
            watchdog.interrupt();
        }
    }

    /** What was still open when the stop took long, in one line (see {@link #dumpWhileStopping}). */
    private volatile String openWhenStopping = "it did not take long";

    private static final long STOP_DIAGNOSTICS_AFTER_MILLIS = 10_000;

    private void dumpWhileStopping() {
        try {
            Thread.sleep(STOP_DIAGNOSTICS_AFTER_MILLIS);
        } catch (InterruptedException stopped) {
            return;
        }
        openWhenStopping = openConnectionsAndRequests();
        StringBuilder dump = new StringBuilder("The server has not stopped after ")
                .append(STOP_DIAGNOSTICS_AFTER_MILLIS)
                .append(" ms:\n");
        try {
            dump.append(
                    support.getEnvironment().getApplicationContext().getServer().dump());
        } catch (RuntimeException e) {
            dump.append("(no Jetty dump: ").append(e).append(")\n");
        }
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            dump.append('"')
                    .append(thread.getName())
                    .append("\" ")
                    .append(thread.getState())
                    .append('\n');
            for (StackTraceElement frame : stack) {
                dump.append("    at ").append(frame).append('\n');
            }
        });
        System.err.println(dump);
    }

    /** Each connection still open (its endpoint and connection, as Jetty names them) and each request still handled. */
    private String openConnectionsAndRequests() {
        StringBuilder open = new StringBuilder("open after " + STOP_DIAGNOSTICS_AFTER_MILLIS + " ms:");
        try {
            for (Connector connector :
                    support.getEnvironment().getApplicationContext().getServer().getConnectors()) {
                if (connector instanceof AbstractConnector jetty) {
                    for (EndPoint endPoint : jetty.getConnectedEndPoints()) {
                        open.append(" [")
                                .append(connector.getName())
                                .append(' ')
                                .append(endPoint)
                                .append(']');
                    }
                }
            }
        } catch (RuntimeException e) {
            open.append(" (no connections: ").append(e).append(')');
        }
        // Dropwizard names a request's thread after the request while it handles it ("dw-42 - POST /v1/...").
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith("dw-") && thread.getName().contains(" - ") && stack.length > 0) {
                StackTraceElement where = Arrays.stream(stack)
                        .filter(frame -> frame.getClassName().startsWith("io.treecat."))
                        .findFirst()
                        .orElse(stack[0]);
                open.append(" {")
                        .append(thread.getName())
                        .append(" at ")
                        .append(stack[0])
                        .append(" in ")
                        .append(where)
                        .append('}');
            }
        });
        return open.toString();
    }

    /** The server's {@code logging.level} (WARN unless a test asks for another): use this, not a plain override. */
    static ConfigOverride logLevel(String level) {
        return new LogLevel(level);
    }

    private static final class LogLevel extends ConfigOverride {
        private final ConfigOverride delegate;

        LogLevel(String level) {
            this.delegate = ConfigOverride.config("logging.level", level);
        }

        @Override
        public void addToSystemProperties() {
            delegate.addToSystemProperties();
        }

        @Override
        public void removeFromSystemProperties() {
            delegate.removeFromSystemProperties();
        }
    }

    /** The application (HTTP) port the server bound. */
    /**
     * Iceberg's own REST client on this server, with {@link LocalFileIO} for the {@code file:} warehouse
     * (no Hadoop on the class path) and the given extra catalog properties.
     */
    RESTCatalog icebergClient(String name, Map<String, String> extra) {
        Map<String, String> properties = new HashMap<>(Map.of(
                CatalogProperties.URI,
                "http://127.0.0.1:" + port(),
                CatalogProperties.FILE_IO_IMPL,
                LocalFileIO.class.getName()));
        properties.putAll(extra);
        RESTCatalog client = new RESTCatalog();
        client.initialize(name, properties);
        return client;
    }

    RESTCatalog icebergClient() {
        return icebergClient("treecat", Map.of());
    }

    /** Iceberg's REST client asking this server to plan every scan ({@code scan-planning-mode=server}). */
    RESTCatalog icebergServerPlanningClient() {
        return icebergClient(
                "server-planning",
                Map.of(
                        RESTCatalogProperties.SCAN_PLANNING_MODE,
                        RESTCatalogProperties.ScanPlanningMode.SERVER.modeName()));
    }

    /**
     * An access token from this server's token endpoint for a client credential ({@code id:secret}), the exchange
     * Iceberg's OAuth2 client makes; fails unless the endpoint answers 200.
     */
    String clientCredentialsToken(String credential) {
        String[] parts = credential.split(":", 2);
        HttpRequest request = HttpRequest.newBuilder(api("/v1/oauth/tokens"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&client_id=" + parts[0]
                        + "&client_secret=" + URLEncoder.encode(parts[1], StandardCharsets.UTF_8)))
                .build();
        HttpResponse<String> response = exchange(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new AssertionError("The token endpoint answered " + response.statusCode() + ": " + response.body());
        }
        try {
            return JSON.readTree(response.body()).get("access_token").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return support.getLocalPort();
    }

    /** The admin port: health checks, metrics, tasks. */
    int adminPort() {
        return support.getAdminPort();
    }

    /** The port the HMS Thrift listener bound. */
    int hmsPort() {
        return ((TreeCatApplication) support.getApplication()).hmsPort();
    }

    /** The port the gRPC listener bound. */
    int grpcPort() {
        return ((TreeCatApplication) support.getApplication()).grpcPort();
    }

    /** The gRPC listener's address, for a client. */
    String grpcTarget() {
        return "127.0.0.1:" + ((TreeCatApplication) support.getApplication()).grpcPort();
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    Reply get(String path) {
        return send("GET", api(path), HttpRequest.BodyPublishers.noBody());
    }

    Reply post(String path, String body) {
        return send("POST", api(path), HttpRequest.BodyPublishers.ofString(body));
    }

    /** A POST whose body has no Content-Length: sent chunked, as it streams. */
    Reply postStreamed(String path, Supplier<InputStream> body) {
        return send("POST", api(path), HttpRequest.BodyPublishers.ofInputStream(body));
    }

    Reply delete(String path) {
        return send("DELETE", api(path), HttpRequest.BodyPublishers.noBody());
    }

    Reply send(String method, String path, String body) {
        return send(method, api(path), HttpRequest.BodyPublishers.ofString(body));
    }

    /** A request with extra headers (name, value, name, value, …); a null body sends none. */
    Reply send(String method, String path, String body, String... headers) {
        HttpRequest.BodyPublisher publisher =
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
        return send(method, api(path), publisher, headers);
    }

    Reply admin(String path) {
        return send(
                "GET",
                URI.create("http://127.0.0.1:" + support.getAdminPort() + path),
                HttpRequest.BodyPublishers.noBody());
    }

    private URI api(String path) {
        return URI.create("http://127.0.0.1:" + support.getLocalPort() + path);
    }

    private Reply send(String method, URI uri, HttpRequest.BodyPublisher body, String... headers) {
        HttpRequest.Builder builder =
                HttpRequest.newBuilder(uri).method(method, body).header("Content-Type", "application/json");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        HttpResponse<String> response = exchange(builder.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(
                response.statusCode(),
                response.headers().firstValue("Content-Type").orElse(""),
                response.body(),
                response.headers().map());
    }

    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> body) {
        try {
            return http.send(request, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A GET with extra headers (name, value, …) whose body is kept as the bytes that came, undecoded. */
    RawReply getRaw(String path, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(api(path)).GET();
        for (int i = 0; i + 1 < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        HttpResponse<byte[]> response = exchange(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new RawReply(response.statusCode(), response.body(), response.headers());
    }

    record RawReply(int status, byte[] body, java.net.http.HttpHeaders headers) {
        /** A response header's values joined by ", ", or null (names are case-insensitive, as HTTP's). */
        String header(String name) {
            List<String> values = headers.allValues(name);
            return values.isEmpty() ? null : String.join(", ", values);
        }
    }

    record Reply(int status, String contentType, String body, Map<String, List<String>> headers) {
        /** A response header's first value, or null (names are case-insensitive, as HTTP's). */
        String header(String name) {
            return headers.entrySet().stream()
                    .filter(entry -> entry.getKey().equalsIgnoreCase(name)
                            && !entry.getValue().isEmpty())
                    .map(entry -> entry.getValue().get(0))
                    .findFirst()
                    .orElse(null);
        }

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("Not JSON: " + body, e);
            }
        }

        JsonNode error() {
            return json().get("error");
        }
    }
}
