package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * TreeCat's native path-query API over its JSON mirror ({@code GET /treecat/v1/query}, docs/native-api.md): one
 * page of rows at a time, at one vid. Serializable, so that Spark's executors read the pages themselves.
 */
final class NativeQueryClient implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final String baseUri;
    /** A bearer token for a server with authentication (the catalog's {@code token}), or null. Never logged. */
    private final String token;
    /** {@code <client id>:<secret>} for OAuth2 client credentials (the catalog's {@code credential}), or null. */
    private final String credential;
    /** Where {@link #credential} gets its tokens (the catalog's {@code oauth2-server-uri}). */
    private final String tokenUri;
    /** The scope the tokens are asked for (the catalog's {@code scope}). */
    private final String scope;

    private transient HttpClient http;
    /** The token got with {@link #credential}, and when to get another one. */
    private transient String fetched;

    private transient long fetchedUntilNanos;

    NativeQueryClient(String baseUri, String token) {
        this(baseUri, token, null, null, null);
    }

    private NativeQueryClient(String baseUri, String token, String credential, String tokenUri, String scope) {
        String base = requireNonNull(baseUri, "baseUri is null");
        this.baseUri = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.token = token;
        this.credential = credential;
        this.tokenUri = tokenUri;
        this.scope = scope;
    }

    /**
     * The client for a catalog's Iceberg REST properties: {@code uri}, and the same authentication as Iceberg's
     * client uses: {@code token}, or {@code credential} ({@code <client id>:<secret>}) exchanged for tokens at
     * {@code oauth2-server-uri} (default: the server's {@code /v1/oauth/tokens}) with {@code scope} (default
     * {@code catalog}).
     */
    static NativeQueryClient forCatalog(Map<String, String> properties) {
        String uri = requireNonNull(properties.get("uri"), "the catalog has no uri");
        String base = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
        String credential = properties.get("credential");
        return new NativeQueryClient(
                base,
                properties.get("token"),
                credential,
                properties.getOrDefault("oauth2-server-uri", base + "/v1/oauth/tokens"),
                properties.getOrDefault("scope", "catalog"));
    }

    /** A page of a query's rows: the vid it read, the rows ({@code path, kind, version, value}), the next page's token. */
    record Page(long vid, JsonNode rows, String nextPageToken) {}

    /** What the server answered when it refused a query: its status, message and context (a syntax error's position). */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final transient JsonNode context;

        Refused(int status, String message, JsonNode context) {
            super(message);
            this.status = status;
            this.context = context;
        }

        int status() {
            return status;
        }

        /** A context field as a number (a syntax error's {@code line}, {@code column}, {@code position}), if any. */
        OptionalLong contextNumber(String field) {
            JsonNode value = context == null ? null : context.get(field);
            if (value == null || !(value.isNumber() || value.isTextual())) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(Long.parseLong(value.asText()));
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }
    }

    /** One page of {@code query}'s rows, at {@code vid} (empty: the newest), with the value projected to {@code fields}. */
    Page page(String query, OptionalLong vid, String fields, int limit, String pageToken) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("q", query);
        vid.ifPresent(at -> parameters.put("vid", Long.toString(at)));
        if (fields != null) {
            parameters.put("fields", fields);
        }
        parameters.put("limit", Integer.toString(limit));
        if (pageToken != null) {
            parameters.put("pageToken", pageToken);
        }
        JsonNode answer = get("/treecat/v1/query", parameters);
        JsonNode next = answer.get("nextPageToken");
        return new Page(
                answer.path("vid").asLong(), answer.path("rows"), next == null || next.isNull() ? null : next.asText());
    }

    /** A page of the commit log: commits that touched {@code path} or below, oldest first, up to {@code untilVid}. */
    record CommitPage(JsonNode commits, String nextPageToken) {}

    CommitPage commits(String path, long untilVid, String pageToken) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("path", path);
        parameters.put("until", Long.toString(untilVid));
        parameters.put("order", "oldest");
        parameters.put("limit", "1000");
        if (pageToken != null) {
            parameters.put("pageToken", pageToken);
        }
        JsonNode answer = get("/treecat/v1/commits", parameters);
        JsonNode next = answer.get("nextPageToken");
        return new CommitPage(answer.path("commits"), next == null || next.isNull() ? null : next.asText());
    }

    private JsonNode get(String path, Map<String, String> parameters) {
        StringBuilder uri = new StringBuilder(baseUri).append(path);
        char separator = '?';
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            uri.append(separator)
                    .append(parameter.getKey())
                    .append('=')
                    .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8)
                            .replace("+", "%20"));
            separator = '&';
        }
        try {
            HttpResponse<byte[]> response = send(URI.create(uri.toString()));
            if (response.statusCode() == 401 && credential != null) {
                // The token expired early (a restarted server, a rotated key): one more try with a fresh one.
                forgetToken();
                response = send(URI.create(uri.toString()));
            }
            JsonNode body = response.body().length == 0 ? JSON.nullNode() : JSON.readTree(response.body());
            if (response.statusCode() != 200) {
                JsonNode error = body.path("error");
                String message = error.path("message").asText("HTTP " + response.statusCode());
                throw new Refused(response.statusCode(), message, error.get("context"));
            }
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException("TreeCat at " + baseUri + " did not answer the path query: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading a path query from TreeCat", e);
        }
    }

    private HttpResponse<byte[]> send(URI uri) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(TIMEOUT)
                .header("Accept", "application/json")
                .GET();
        String bearer = bearer();
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return client().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The token to send: the catalog's own, or one got with its credential and kept until shortly before expiry. */
    private synchronized String bearer() throws IOException, InterruptedException {
        if (token != null || credential == null) {
            return token;
        }
        if (fetched != null && System.nanoTime() < fetchedUntilNanos) {
            return fetched;
        }
        int colon = credential.indexOf(':');
        String clientId = colon < 0 ? "" : credential.substring(0, colon);
        String secret = colon < 0 ? credential : credential.substring(colon + 1);
        String form = "grant_type=client_credentials&client_id=" + URLEncoder.encode(clientId, StandardCharsets.UTF_8)
                + "&client_secret=" + URLEncoder.encode(secret, StandardCharsets.UTF_8)
                + "&scope=" + URLEncoder.encode(scope, StandardCharsets.UTF_8);
        HttpResponse<byte[]> response = client().send(
                        HttpRequest.newBuilder(URI.create(tokenUri))
                                .timeout(TIMEOUT)
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString(form))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
        JsonNode body = response.body().length == 0 ? JSON.nullNode() : JSON.readTree(response.body());
        if (response.statusCode() != 200 || !body.path("access_token").isTextual()) {
            // The server's error names what failed; never the secret, which is not in it.
            throw new Refused(
                    response.statusCode(),
                    "No token for the catalog's credential from " + tokenUri + ": "
                            + body.path("error_description")
                                    .asText(body.path("error").asText("HTTP " + response.statusCode())),
                    null);
        }
        long lifetimeSeconds = body.path("expires_in").asLong(300);
        fetched = body.path("access_token").asText();
        // Refreshed at 80 % of its life, so that a page is never sent with a token about to expire.
        fetchedUntilNanos = System.nanoTime() + lifetimeSeconds * 800_000_000L;
        return fetched;
    }

    private synchronized void forgetToken() {
        fetched = null;
    }

    private synchronized HttpClient client() {
        if (http == null) {
            http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
        }
        return http;
    }
}
