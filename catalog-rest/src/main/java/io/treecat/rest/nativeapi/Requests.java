package io.treecat.rest.nativeapi;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.ChildKinds;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Turns query parameters and request bodies into core values. Everything arrives as text and is
 * parsed here, so a malformed parameter is a 400 with the parameter's name rather than Jersey's
 * default 404 for an unconvertible {@code @QueryParam}.
 */
public final class Requests {
    private Requests() {}

    /** The read point named by {@code vid} or {@code snapshot} (at most one), else the newest. */
    static ReadPoint readPoint(String vid, String snapshot) {
        return readPoint(vid, snapshot, null);
    }

    /**
     * The read point named by {@code vid}, {@code snapshot} or {@code asOfTime} (an RFC 3339 time;
     * at most one of the three), else the newest.
     */
    public static ReadPoint readPoint(String vid, String snapshot, String asOfTime) {
        int given = (vid != null ? 1 : 0) + (snapshot != null ? 1 : 0) + (asOfTime != null ? 1 : 0);
        if (given > 1) {
            ApiException both = ApiException.invalidRequest("Give at most one of vid, snapshot and asOfTime");
            if (vid != null) {
                both.with("vid", vid);
            }
            if (snapshot != null) {
                both.with("snapshot", snapshot);
            }
            if (asOfTime != null) {
                both.with("asOfTime", asOfTime);
            }
            throw both;
        }
        if (vid != null) {
            return ReadPoint.vid(longParameter("vid", vid));
        }
        if (asOfTime != null) {
            return ReadPoint.time(ReadPoint.parseTime(asOfTime, "asOfTime"));
        }
        return snapshot != null ? ReadPoint.snapshot(snapshot) : ReadPoint.LATEST;
    }

    static ReadPoint readPoint(Long vid, String snapshot) {
        return readPoint(vid == null ? null : vid.toString(), snapshot);
    }

    static ReadPoint readPoint(Long vid, String snapshot, String asOfTime) {
        return readPoint(vid == null ? null : vid.toString(), snapshot, asOfTime);
    }

    static long longParameter(String name, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw ApiException.invalidRequest("Parameter is not an integer")
                    .with("parameter", name)
                    .with("value", text);
        }
    }

    static String required(String name, String value) {
        if (value == null || value.isEmpty()) {
            throw ApiException.invalidRequest("Missing required parameter").with("parameter", name);
        }
        return value;
    }

    static ObjectPath path(String name, String text) {
        return ObjectPath.parse(required(name, text));
    }

    /** A query request from the query string of {@code GET …/query}. */
    static QueryRequest query(
            String query, ReadPoint point, String results, String fields, String limit, String pageToken) {
        QueryRequest request = QueryRequest.of(required("q", query))
                .at(point)
                .withResults(results(results))
                .withProjection(fields(fields));
        if (limit != null) {
            long rows = longParameter("limit", limit);
            request = request.withLimit((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, rows)));
        }
        return pageToken == null || pageToken.isEmpty() ? request : request.withPageToken(pageToken);
    }

    static ChildKinds results(String text) {
        if (text == null) {
            return ChildKinds.BOTH;
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "leaves", "leaf" -> ChildKinds.LEAVES;
            case "inner" -> ChildKinds.INNER;
            case "both" -> ChildKinds.BOTH;
            default ->
                throw ApiException.invalidRequest("results must be leaves, inner or both")
                        .with("results", text);
        };
    }

    static List<String> fields(String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        return Arrays.stream(text.split(","))
                .map(String::trim)
                .filter(field -> !field.isEmpty())
                .toList();
    }

    static TransactionMode mode(String text) {
        if (text == null) {
            return TransactionMode.READ_WRITE;
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "read-write" -> TransactionMode.READ_WRITE;
            case "read-only" -> TransactionMode.READ_ONLY;
            default ->
                throw ApiException.invalidRequest("mode must be read-write or read-only")
                        .with("mode", text);
        };
    }

    static String mode(TransactionMode mode) {
        return switch (mode) {
            case READ_WRITE -> "read-write";
            case READ_ONLY -> "read-only";
        };
    }

    /** The whole body as UTF-8 text (the size filter has already bounded it). */
    static String text(InputStream body) {
        try {
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the request body", e);
        }
    }
}
