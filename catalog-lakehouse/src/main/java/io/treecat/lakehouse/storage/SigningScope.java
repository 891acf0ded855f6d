package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the server may sign an S3 request a client sends it (remote signing): only requests for objects under one
 * table's location, in the bucket of that location, with the methods Iceberg's {@code S3FileIO} uses. The signer holds
 * the catalog's own keys, so this check is all that keeps a client holding one table's signer endpoint out of every
 * other table in the bucket.
 *
 * <p>What passes, for a table at {@code s3://bucket/prefix}:
 *
 * <ul>
 *   <li>{@code GET}, {@code HEAD}, {@code PUT}, {@code DELETE} of a key under {@code prefix/}, with any query
 *       (ranges, multipart {@code uploads}, {@code uploadId}, {@code partNumber});
 *   <li>{@code POST} of such a key (multipart create and complete);
 *   <li>{@code GET} of the bucket with {@code list-type=2} and a {@code prefix} under {@code prefix/} (a listing);
 *   <li>{@code POST} of the bucket with {@code delete} (DeleteObjects) whose body names only keys under
 *       {@code prefix/}.
 * </ul>
 *
 * <p>Both addressing styles are read: path style ({@code http://endpoint/bucket/key}) and virtual host
 * ({@code http://bucket.endpoint/key}). A key with a {@code .} or {@code ..} segment, or an encoded slash, is refused
 * whatever it resolves to: a store may normalize it, so it cannot be checked.
 */
public final class SigningScope {
    private static final Set<String> OBJECT_METHODS = Set.of("GET", "HEAD", "PUT", "POST", "DELETE");
    private static final Pattern DELETE_KEY = Pattern.compile("<Key>([^<]*)</Key>");

    private final String bucket;
    private final String prefix;
    /** The store's host[:port] (lower case), or null to take any host (a catalog with no {@code s3.endpoint}). */
    private final String endpoint;

    private SigningScope(String bucket, String prefix, String endpoint) {
        this.bucket = bucket;
        this.prefix = prefix;
        this.endpoint = endpoint;
    }

    /**
     * This scope, and only on the catalog's own store: a request must go to {@code endpoint}'s host and port (or
     * {@code bucket.} that host, virtual-host style), so a signature made with the catalog's keys is never for the
     * same bucket name on another store where the keys may also be valid.
     *
     * @param endpoint the catalog's {@code s3.endpoint}; null or blank keeps any host
     */
    public SigningScope onEndpoint(String endpoint) {
        if (endpoint == null || endpoint.isBlank()) {
            return this;
        }
        URI uri = URI.create(endpoint.trim());
        String authority = uri.getAuthority() == null ? endpoint.trim() : uri.getAuthority();
        return new SigningScope(bucket, prefix, authority.toLowerCase(Locale.ROOT));
    }

    /**
     * The scope of a table at {@code tableLocation} ({@code s3://}, {@code s3a://} or {@code s3n://}).
     *
     * @throws IllegalArgumentException for a location that is not on S3 or names no key prefix (a table at a bucket's
     *     root is never signed for: its scope would be the whole bucket)
     */
    public static SigningScope of(String tableLocation) {
        requireNonNull(tableLocation, "tableLocation is null");
        // URI parsing would take a '?' or '#' as the start of a query or fragment, and the scope would be another
        // directory than the table's.
        if (tableLocation.indexOf('?') >= 0 || tableLocation.indexOf('#') >= 0) {
            throw new IllegalArgumentException("Remote signing needs a table location without '?' or '#'");
        }
        URI uri = URI.create(Locations.stripSlash(tableLocation));
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!StorageSchemes.sameStore(scheme, "s3") || uri.getHost() == null) {
            throw new IllegalArgumentException("Remote signing serves only tables on S3");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String key = path.startsWith("/") ? path.substring(1) : path;
        if (key.isEmpty() || Locations.hasDotSegment(tableLocation)) {
            throw new IllegalArgumentException("Remote signing needs a table location below its bucket's root");
        }
        return new SigningScope(uri.getHost(), key + "/", null);
    }

    /**
     * Whether a request is inside this scope.
     *
     * @param method the HTTP method
     * @param uri the request's URI, as the SDK would send it (percent-encoded path and query)
     * @param body the request's body when the client sends one (only DeleteObjects), else null
     * @return null when it is, else why not (for the 403's message; names no key)
     */
    public String refusal(String method, URI uri, String body) {
        String upper = method == null ? "" : method.toUpperCase(Locale.ROOT);
        if (!OBJECT_METHODS.contains(upper)) {
            return "method " + method + " is not one S3FileIO uses";
        }
        if (uri == null || uri.getRawPath() == null || uri.getHost() == null) {
            return "the request names no host and path";
        }
        String rawPath = uri.getRawPath();
        if (rawPath.toLowerCase(Locale.ROOT).contains("%2f")) {
            return "the key holds an encoded slash";
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (endpoint != null) {
            String authority =
                    uri.getRawAuthority() == null ? "" : uri.getRawAuthority().toLowerCase(Locale.ROOT);
            if (!authority.equals(endpoint) && !authority.equals(bucket.toLowerCase(Locale.ROOT) + "." + endpoint)) {
                return "the request is for another host than the catalog's store";
            }
        }
        String rawKey;
        if (host.startsWith(bucket.toLowerCase(Locale.ROOT) + ".")) {
            rawKey = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
        } else {
            String relative = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
            int slash = relative.indexOf('/');
            String requestBucket = decode(slash < 0 ? relative : relative.substring(0, slash));
            if (!requestBucket.equals(bucket)) {
                return "the request is for another bucket";
            }
            rawKey = slash < 0 ? "" : relative.substring(slash + 1);
        }
        String key = decode(rawKey);
        if (hasDotSegment(key)) {
            return "the key holds a . or .. segment";
        }
        if (key.isEmpty()) {
            return bucketRequest(upper, uri.getRawQuery(), body);
        }
        return key.startsWith(prefix) ? null : "the key is outside the table's location";
    }

    /** A request for the bucket itself: a listing or a DeleteObjects, each only under the prefix. */
    private String bucketRequest(String method, String rawQuery, String body) {
        List<String[]> query = query(rawQuery);
        if (method.equals("GET") && has(query, "list-type")) {
            String listed = value(query, "prefix");
            return listed != null && listed.startsWith(prefix) && !hasDotSegment(listed)
                    ? null
                    : "the listing is not under the table's location";
        }
        if (method.equals("POST") && has(query, "delete")) {
            if (body == null || body.isEmpty()) {
                return "the DeleteObjects request has no body to check";
            }
            Matcher keys = DELETE_KEY.matcher(body);
            int count = 0;
            while (keys.find()) {
                String key = xmlText(keys.group(1));
                if (!key.startsWith(prefix) || hasDotSegment(key)) {
                    return "the DeleteObjects request names a key outside the table's location";
                }
                count++;
            }
            return count > 0 ? null : "the DeleteObjects request names no key";
        }
        return "bucket requests other than a listing and DeleteObjects are not signed";
    }

    private static boolean hasDotSegment(String key) {
        for (String segment : key.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return key.contains("\\");
    }

    private static List<String[]> query(String rawQuery) {
        List<String[]> pairs = new ArrayList<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return pairs;
        }
        for (String pair : rawQuery.split("&")) {
            int equals = pair.indexOf('=');
            pairs.add(
                    equals < 0
                            ? new String[] {decode(pair), null}
                            : new String[] {decode(pair.substring(0, equals)), decode(pair.substring(equals + 1))});
        }
        return pairs;
    }

    private static boolean has(List<String[]> query, String name) {
        return query.stream().anyMatch(pair -> pair[0].equals(name));
    }

    private static String value(List<String[]> query, String name) {
        return query.stream()
                .filter(pair -> pair[0].equals(name))
                .map(pair -> pair[1])
                .findFirst()
                .orElse(null);
    }

    /** Percent-decoding only: in a path a {@code +} is a plus. */
    private static String decode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String xmlText(String text) {
        return text.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&");
    }
}
