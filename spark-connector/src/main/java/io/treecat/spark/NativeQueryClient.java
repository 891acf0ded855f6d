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

    private transient HttpClient http;

    NativeQueryClient(String baseUri, String token) {
        String base = requireNonNull(baseUri, "baseUri is null");
        this.baseUri = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.token = token;
    }

    String baseUri() {
        return baseUri;
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
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri.toString()))
                .timeout(TIMEOUT)
                .header("Accept", "application/json")
                .GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<byte[]> response = client().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
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

    private synchronized HttpClient client() {
        if (http == null) {
            http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
        }
        return http;
    }
}
