package io.treecat.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

/**
 * One HTTP request of {@link LiveProtocolFuzzIT}: a valid request of one endpoint family (Iceberg REST
 * and the native mirror), mutated, sent through Java's client or byte by byte through a socket (random
 * methods, lying or huge headers, chunked and gzip garbage). Each answer is judged: a 5xx is a finding
 * (every request here is valid or a client's mistake), a refused create is remembered, and the names
 * an acknowledged request carried are noted.
 */
final class HttpFuzzer {
    static final String PREFIX = "warehouse";
    static final String NAMESPACE = "fz";
    static final String TABLE = "t";
    static final String VIEW = "v";

    static final String SCHEMA = "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
            + "{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"int\"},"
            + "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}";
    static final String VIEW_VERSION = "{\"version-id\":1,\"schema-id\":0,\"timestamp-ms\":1,\"summary\":{},"
            + "\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"spark\"}],"
            + "\"default-namespace\":[\"fz\"]}";

    /** A family of endpoints: how to build a valid request of it. */
    private enum Family {
        CONFIG,
        NAMESPACE_CREATE,
        NAMESPACE_READ,
        NAMESPACE_PROPERTIES,
        TABLE_CREATE,
        TABLE_READ,
        TABLE_COMMIT,
        VIEW_CREATE,
        TRANSACTION_COMMIT,
        PLAN,
        RENAME,
        NATIVE_COMMIT,
        NATIVE_QUERY,
        NATIVE_OBJECT,
        NATIVE_TRANSACTION,
        NATIVE_SNAPSHOT,
        NATIVE_LOAD
    }

    private static final List<String> METHODS =
            List.of("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FOO", "G ET", "");

    private static final List<String> CONTENT_TYPES = List.of(
            "application/json",
            "application/json; charset=UTF-8",
            "application/json; charset=UTF-16",
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/xml",
            "*/*",
            ";;;",
            "application/json; charset=nonsense");

    private final LiveProtocolFuzzIT.Target server;
    private final HostileInputs inputs;
    private final LiveFuzzLedger ledger;
    /** Jetty's request header limit, as Dropwizard sets it (server.applicationConnectors[].maxRequestHeaderSize). */
    private static final int MAX_HEADER_BYTES = 8 * 1024;

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    HttpFuzzer(LiveProtocolFuzzIT.Target server, HostileInputs inputs, LiveFuzzLedger ledger) {
        this.server = server;
        this.inputs = inputs;
        this.ledger = ledger;
    }

    /** A request as built before it is sent: method, path with query, body, names it carries, what it creates. */
    private record Request(
            Family family, String method, String path, String body, List<String> names, String creates) {}

    void fuzzOne() {
        Family family = inputs.pick(List.of(Family.values()));
        Request request = build(family);
        if (!inputs.chance(15)) {
            sendWithClient(request);
        } else {
            sendRaw(request);
        }
    }

    private Request build(Family family) {
        Random random = inputs.random();
        List<String> names = new ArrayList<>();
        String ns = inputs.chance(70) ? NAMESPACE : named(names);
        String table = inputs.chance(60) ? TABLE : named(names);
        String nsPath = "/v1/" + prefix() + "/namespaces/" + inputs.segment(ns);
        switch (family) {
            case CONFIG:
                return new Request(
                        family,
                        "GET",
                        "/v1/config" + (inputs.chance(50) ? "?warehouse=" + inputs.segment(named(names)) : ""),
                        null,
                        names,
                        null);
            case NAMESPACE_CREATE: {
                String name = inputs.name();
                String body = "{\"namespace\":" + nameArray(name) + ",\"properties\":{\"owner\":\"fuzz\"}}";
                return new Request(family, "POST", "/v1/" + prefix() + "/namespaces", body, names, "namespace");
            }
            case NAMESPACE_READ:
                return new Request(family, inputs.pick(List.of("GET", "HEAD", "DELETE")), nsPath, null, names, null);
            case NAMESPACE_PROPERTIES:
                return new Request(
                        family,
                        "POST",
                        nsPath + "/properties",
                        "{\"removals\":[\"gone\"],\"updates\":{\"k\":\"v\"}}",
                        names,
                        null);
            case TABLE_CREATE: {
                String name = inputs.name();
                String body = "{\"name\":" + quote(name) + ",\"schema\":" + SCHEMA
                        + ",\"partition-spec\":{\"spec-id\":0,\"fields\":[]},\"properties\":{}}";
                return new Request(family, "POST", nsPath + "/tables", body, names, creates("table", ns));
            }
            case TABLE_READ:
                return new Request(
                        family,
                        inputs.pick(List.of("GET", "HEAD", "GET")),
                        nsPath + "/tables/" + inputs.segment(table)
                                + (inputs.chance(30) ? "?snapshots=" + inputs.segment(inputs.name()) : ""),
                        null,
                        names,
                        null);
            case TABLE_COMMIT:
                return new Request(
                        family,
                        "POST",
                        nsPath + "/tables/" + inputs.segment(table),
                        "{\"requirements\":[{\"type\":\"assert-table-uuid\",\"uuid\":\"00000000-0000-0000-0000-000000000000\"}],"
                                + "\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}},"
                                + "{\"action\":\"set-location\",\"location\":\"/tmp/x\"}]}",
                        names,
                        null);
            case VIEW_CREATE: {
                String name = inputs.name();
                String body = "{\"name\":" + quote(name) + ",\"schema\":" + SCHEMA + ",\"view-version\":" + VIEW_VERSION
                        + ",\"properties\":{}}";
                return new Request(family, "POST", nsPath + "/views", body, names, creates("view", ns));
            }
            case TRANSACTION_COMMIT:
                return new Request(
                        family,
                        "POST",
                        "/v1/" + prefix() + "/transactions/commit",
                        "{\"table-changes\":[{\"identifier\":{\"namespace\":" + nameArray(ns) + ",\"name\":"
                                + quote(table)
                                + "},\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]}]}",
                        names,
                        null);
            case PLAN:
                return new Request(
                        family,
                        "POST",
                        nsPath + "/tables/" + inputs.segment(table) + "/plan",
                        "{\"filter\":{\"type\":\"eq\",\"term\":\"a\",\"value\":1},\"select\":[\"a\"],\"case-sensitive\":true}",
                        names,
                        null);
            case RENAME: {
                // Renames only a table no other family uses, so the fuzz table stays where checks look for it.
                String to = inputs.name();
                return new Request(
                        family,
                        "POST",
                        "/v1/" + prefix() + "/tables/rename",
                        "{\"source\":{\"namespace\":[\"fz\"],\"name\":\"missing\"},\"destination\":{\"namespace\":"
                                + nameArray(ns) + ",\"name\":" + quote(to) + "}}",
                        names,
                        null);
            }
            case NATIVE_COMMIT: {
                String id = inputs.name();
                String op = inputs.pick(List.of("add", "add", "update", "merge", "remove"));
                String body = "{\"writes\":[{\"op\":\"" + op + "\",\"path\":" + quote("/fuzz/" + id)
                        + ",\"kind\":\"" + inputs.pick(List.of("inner", "leaf")) + "\",\"value\":{\"n\":1},"
                        + "\"delta\":{\"n\":{\"op\":\"+\",\"val\":1}}}]}";
                return new Request(
                        family, "POST", "/treecat/v1/commit", body, names, "add".equals(op) ? "object" : null);
            }
            case NATIVE_QUERY: {
                String query =
                        inputs.pick(List.of("/fuzz/*", "/[obj_id='fuzz']/*", "/" + inputs.name(), "/*/*[n > 0]"));
                if (inputs.chance(30)) {
                    query = inputs.randomChars(random.nextInt(30));
                }
                String path = "/treecat/v1/" + inputs.pick(List.of("query", "explain")) + "?q=" + inputs.segment(query)
                        + (inputs.chance(30)
                                ? "&limit=" + inputs.segment(inputs.value().asText())
                                : "")
                        + (inputs.chance(20)
                                ? "&vid=" + inputs.segment(inputs.value().asText())
                                : "")
                        + (inputs.chance(20) ? "&pageToken=" + inputs.segment(inputs.randomChars(20)) : "")
                        + (inputs.chance(20) ? "&fields=" + inputs.segment(inputs.name()) : "");
                return new Request(family, "GET", path, null, names, null);
            }
            case NATIVE_OBJECT:
                return new Request(
                        family,
                        "GET",
                        "/treecat/v1/objects?path=" + inputs.segment("/fuzz/" + named(names)),
                        null,
                        names,
                        null);
            case NATIVE_TRANSACTION:
                return new Request(
                        family, "POST", "/treecat/v1/transactions", "{\"mode\":\"read-only\",\"vid\":1}", names, null);
            case NATIVE_SNAPSHOT:
                return new Request(
                        family,
                        "POST",
                        "/treecat/v1/snapshots",
                        "{\"name\":" + quote(inputs.name()) + "}",
                        names,
                        null);
            case NATIVE_LOAD: {
                String id = inputs.name();
                return new Request(
                        family,
                        "POST",
                        "/treecat/v1/load"
                                + (inputs.chance(20)
                                        ? "?chunkSize="
                                                + inputs.segment(inputs.value().asText())
                                        : ""),
                        "{\"path\":" + quote("/fuzz/" + id) + ",\"kind\":\"leaf\",\"value\":{\"n\":1}}",
                        names,
                        null);
            }
        }
        throw new IllegalStateException("family " + family);
    }

    /** What a create in {@code ns} makes, tracked only in the fuzz namespace (whose listing the checks read). */
    private static String creates(String kind, String ns) {
        return NAMESPACE.equals(ns) ? kind + " " + NAMESPACE : null;
    }

    private String prefix() {
        return inputs.chance(90) ? PREFIX : inputs.segment(inputs.name());
    }

    private String named(List<String> names) {
        String name = inputs.name();
        names.add(name);
        return name;
    }

    private static String quote(String name) {
        return LiveProtocolFuzzIT.jsonString(name);
    }

    private static String nameArray(String name) {
        return "[" + LiveProtocolFuzzIT.jsonString(name) + "]";
    }

    /** The body after mutation (most of the time), or the valid body as built. */
    private String body(Request request) {
        if (request.body() == null) {
            return inputs.chance(10) ? inputs.write(inputs.value()) : null;
        }
        if (inputs.chance(25)) {
            return request.body();
        }
        return inputs.mutate(HostileInputs.json(request.body()));
    }

    private void sendWithClient(Request request) {
        String body = body(request);
        String method = request.method();
        if (inputs.chance(5)) {
            method = inputs.pick(List.of("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"));
        }
        URI uri;
        try {
            // Java's client sends only ASCII on the request line; raw bytes there are sendRaw's.
            uri = URI.create(server.http() + rawPath(request.path()));
        } catch (IllegalArgumentException notAUri) {
            return; // the client refuses it before sending: nothing reaches the server
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
        if (inputs.chance(80)) {
            builder.header("Content-Type", inputs.chance(70) ? "application/json" : inputs.pick(CONTENT_TYPES));
        }
        int fuzzHeader = inputs.chance(5) ? inputs.nextInt(20_000) : 0;
        if (fuzzHeader > 0) {
            builder.header("X-Fuzz", "h".repeat(fuzzHeader));
        }
        if (inputs.chance(5)) {
            builder.header("Idempotency-Key", inputs.pick(List.of("x", "", "00000000-0000-0000-0000-000000000000")));
        }
        if (inputs.chance(5)) {
            builder.header("If-None-Match", inputs.pick(List.of("*", "\"x\"", "garbage")));
        }
        byte[] bytes = body == null ? null : encoded(body);
        HttpRequest.BodyPublisher publisher =
                bytes == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(bytes);
        try {
            builder.method(method, publisher);
        } catch (IllegalArgumentException refusedByClient) {
            return;
        }
        ledger.sent("http");
        String describe = method + " " + request.path() + (body == null ? "" : " " + body);
        try {
            HttpResponse<String> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            judge(request, sent(bytes), response.statusCode(), response.body(), describe);
        } catch (IOException e) {
            int headBytes = uri.getRawPath().length()
                    + Objects.toString(uri.getRawQuery(), "").length()
                    + fuzzHeader;
            if (headBytes > MAX_HEADER_BYTES - 1024) {
                // Jetty refuses a request head (request line and headers) over its limit with 414/431 and closes
                // the connection at once; a client still sending a body may get a broken pipe instead of the
                // answer (seen with Java's client). The server staying up and untouched is checked after the batch.
                return;
            }
            ledger.finding(
                    "HTTP " + request.family() + ": no answer (" + e.getClass().getSimpleName() + ")",
                    java.time.Instant.now() + " " + chain(e) + " <- " + describe);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The exception and its causes, for a finding whose cause is the connection, not the answer. */
    private static String chain(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(text.isEmpty() ? "" : " caused by ").append(t);
        }
        return text.toString();
    }

    /** The body as the server decodes it (UTF-8), so acknowledged names are the ones it stored. */
    private static String sent(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private byte[] encoded(String body) {
        if (inputs.chance(3)) {
            return body.getBytes(StandardCharsets.UTF_16);
        }
        if (inputs.chance(3)) {
            return body.getBytes(StandardCharsets.ISO_8859_1);
        }
        return body.getBytes(StandardCharsets.UTF_8);
    }

    /** The request written on a socket: any method, framing and headers, also ones Java's client will not send. */
    private void sendRaw(Request request) {
        String body = body(request);
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String method = inputs.chance(70) ? request.method() : inputs.pick(METHODS);
        List<String> headers = new ArrayList<>();
        headers.add("Connection: close");
        headers.add("Content-Type: application/json");
        byte[] payload = bytes;
        int framing = inputs.nextInt(8);
        boolean complete = true;
        switch (framing) {
            case 0: // Content-Length says less than is sent
                headers.add(
                        "Content-Length: " + Math.max(0, bytes.length - 1 - inputs.nextInt(Math.max(1, bytes.length))));
                break;
            case 1: // Content-Length says more: the body ends early (the socket is half-closed after it)
                headers.add("Content-Length: " + (bytes.length + 1 + inputs.nextInt(1000)));
                complete = false;
                break;
            case 2: // chunked, with a garbage chunk size
                headers.add("Transfer-Encoding: chunked");
                payload = RawHttp.concat(
                        (inputs.pick(List.of("zz", "-1", "FFFFFFFFFFFFFFFF", "1;" + "x".repeat(10_000), "")) + "\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1),
                        bytes,
                        "\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                break;
            case 3: // gzip that is not gzip, or gzip of the body
                headers.add("Content-Encoding: " + inputs.pick(List.of("gzip", "gzip", "deflate", "br", "x-nonsense")));
                payload = inputs.chance(50) ? gzip(bytes) : bytes;
                headers.add("Content-Length: " + payload.length);
                break;
            case 4: // a huge header, or very many
                if (inputs.chance(50)) {
                    headers.add("X-Fuzz: " + "h".repeat(8_000 + inputs.nextInt(100_000)));
                } else {
                    for (int i = 0; i < 200 + inputs.nextInt(2000); i++) {
                        headers.add("X-Fuzz-" + i + ": x");
                    }
                }
                headers.add("Content-Length: " + bytes.length);
                break;
            case 5: // both framings, or two lengths
                headers.add("Content-Length: " + bytes.length);
                headers.add(inputs.chance(50) ? "Transfer-Encoding: chunked" : "Content-Length: " + (bytes.length + 5));
                break;
            case 6: // headers that are not headers
                headers.add(inputs.pick(
                        List.of("NoColon", ": empty name", "X-Bad\u0000: x", "X-Utf8: \u00E9\u00E9", " folded: x")));
                headers.add("Content-Length: " + bytes.length);
                break;
            default:
                headers.add("Content-Length: " + bytes.length);
        }
        String path = inputs.chance(10)
                ? inputs.pick(List.of(
                        "*",
                        "/v1/../namespaces",
                        "//v1//config",
                        "/%00",
                        "/v1/%2e%2e/namespaces",
                        "http://evil/v1/config"))
                : rawPath(request.path());
        String describe = "raw " + method + " " + path + " "
                + headers.subList(1, headers.size()).toString() + " " + (body == null ? "" : body);
        ledger.sent("http");
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.httpPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write(RawHttp.concat(RawHttp.head(method, path, headers.toArray(String[]::new)), payload));
            socket.getOutputStream().flush();
            if (!complete) {
                socket.shutdownOutput();
            }
            // The first answer only: after some requests (a CONNECT) Jetty keeps the connection open despite
            // "Connection: close" until its 30 s idle timeout, and reading to the end waited that out.
            byte[] answer = RawHttp.firstAnswer(socket.getInputStream(), method, 64 * 1024);
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            if (text.isEmpty()) {
                return; // closed without an answer: a refusal the client sees as such
            }
            if (!text.startsWith("HTTP/1.")) {
                ledger.finding("HTTP raw: an answer that is not HTTP", describe + " -> " + text);
                return;
            }
            int status = Integer.parseInt(text.substring(9, 12));
            int split = text.indexOf("\r\n\r\n");
            judge(request, sent(bytes), status, split < 0 ? "" : text.substring(split + 4), describe);
        } catch (java.net.SocketTimeoutException e) {
            ledger.finding("HTTP raw framing " + framing + ": no answer within 30 s", describe);
        } catch (IOException e) {
            // The server closed the connection on a request it could not frame: a refusal, not a failure.
        }
    }

    private String rawPath(String path) {
        // What a client would put on the request line: everything outside ASCII's printable range percent-encoded.
        StringBuilder raw = new StringBuilder();
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            raw.append(c > 0x20 && c < 0x7F ? String.valueOf((char) c) : String.format("%%%02X", c));
        }
        return raw.toString();
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(bytes);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        byte[] zipped = out.toByteArray();
        // Half of the time cut it short: gzip that stops.
        return zipped.length > 10 && zipped.length % 2 == 0
                ? java.util.Arrays.copyOf(zipped, zipped.length / 2)
                : zipped;
    }

    private void judge(Request request, String sentBody, int status, String answer, String describe) {
        if (status >= 500) {
            ledger.finding(
                    "HTTP " + status + " on " + request.family() + ": " + LiveProtocolFuzzIT.errorKind(answer),
                    describe + " -> " + answer);
            return;
        }
        if (request.family() == Family.NATIVE_LOAD && sentBody != null) {
            // A load commits chunk by chunk: a failed load may have made what came before the bad line.
            LiveProtocolFuzzIT.strings(sentBody).forEach(ledger::acknowledged);
        }
        if (status >= 200 && status < 300) {
            request.names().forEach(ledger::acknowledgedAsEncoded);
            if (sentBody != null) {
                LiveProtocolFuzzIT.strings(sentBody).forEach(ledger::acknowledged);
            }
            return;
        }
        // A create the server refused: the object must not exist afterwards (unless it was there already).
        if (request.creates() != null && status != 409 && sentBody != null && status >= 400) {
            String created = createdName(request, sentBody);
            if (created != null) {
                ledger.refusedCreate(request.creates() + " " + created, status + " " + describe);
            }
        }
    }

    /** The name the body asked to create, read back as the server would read it, or null if it is not there. */
    private static String createdName(Request request, String body) {
        JsonNode json;
        try {
            json = HostileInputs.json(body);
        } catch (RuntimeException notJson) {
            return null;
        }
        if (request.family() == Family.NAMESPACE_CREATE) {
            JsonNode namespace = json.path("namespace");
            return namespace.isArray()
                            && namespace.size() == 1
                            && namespace.get(0).isTextual()
                    ? namespace.get(0).asText()
                    : null;
        }
        if (request.family() == Family.NATIVE_COMMIT) {
            JsonNode write = json.path("writes").path(0);
            return "add".equals(write.path("op").asText()) && write.path("path").isTextual()
                    ? write.path("path").asText()
                    : null;
        }
        JsonNode name = json.path("name");
        return name.isTextual() ? name.asText() : null;
    }
}
