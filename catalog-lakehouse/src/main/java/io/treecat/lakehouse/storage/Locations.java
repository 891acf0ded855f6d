package io.treecat.lakehouse.storage;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.IdOrder;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Location strings as Iceberg and Hive write them ({@code file:/a/b}, {@code s3://bucket/a/b}, a bare
 * {@code /a/b}), and the checks every location the lake writes to passes.
 */
public final class Locations {
    /**
     * The longest path segment a default location is built with, in bytes: 255, the longest file name
     * of common file systems (a longer directory name fails to be made).
     */
    public static final int MAX_SEGMENT_BYTES = 255;

    private static final Pattern ENCODED_SEPARATOR = Pattern.compile("%2[Ff]|%5[Cc]");
    private static final Pattern ENCODED_DOT = Pattern.compile("%2[Ee]");
    private static final Pattern SEPARATOR = Pattern.compile("[/\\\\]");
    private static final Pattern REPEATED_SLASHES = Pattern.compile("/{2,}");

    private Locations() {}

    /** {@code location} without trailing slashes (a lone "/" stays). */
    public static String stripSlash(String location) {
        String result = location;
        while (result.endsWith("/") && result.length() > 1) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }

    /**
     * A name as one path segment of a default location: {@code %} is written {@code %25}, {@code /}
     * {@code %2F} and {@code \} {@code %5C}, as Hive escapes a partition value in a path, and a name that
     * is {@code .} or {@code ..} has its dots written {@code %2E}. Every other character stays, so the
     * common names are their own segment. The escape is one-to-one (distinct names never share a
     * location), and the segment is never a separator, {@code .} or {@code ..} for a reader that takes
     * the location as written (Hadoop's {@code Path}, Iceberg's {@code S3FileIO}, PyIceberg,
     * {@link LocalFileIO}). A reader that percent-decodes it ({@code java.net.URI}) sees the name's
     * slashes as separators, which is why {@link io.treecat.lakehouse.model.LakeNames} refuses a name
     * with a {@code .} or {@code ..} part between slashes.
     */
    public static String segment(String name) {
        boolean allDots = name.equals(".") || name.equals("..");
        StringBuilder segment = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '%' -> segment.append("%25");
                case '/' -> segment.append("%2F");
                case '\\' -> segment.append("%5C");
                case '.' -> segment.append(allDots ? "%2E" : ".");
                default -> segment.append(c);
            }
        }
        return segment.toString();
    }

    /**
     * Whether a path segment of {@code location} is {@code .} or {@code ..}, as written or once
     * percent-decoded ({@code %2E}, and {@code %2F} or {@code %5C} as a separator; a backslash counts as
     * one too): readers resolve them differently (a local file system walks up, an object store keeps
     * them as key text), so a location holding one cannot be placed.
     */
    public static boolean hasDotSegment(String location) {
        if (location.indexOf('.') < 0 && location.indexOf('%') < 0) {
            return false;
        }
        String path = parse(location).path();
        String decoded = ENCODED_DOT
                .matcher(ENCODED_SEPARATOR.matcher(path).replaceAll("/"))
                .replaceAll(".");
        for (String segment : SEPARATOR.split(decoded, -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks that a location can be placed anywhere: not blank, no control character (U+0000–U+001F,
     * U+007F) or lone surrogate (no file system takes one), no {@code .} or {@code ..} segment
     * ({@link #hasDotSegment}). {@code what} names the location in a refusal, which never repeats it (it
     * may be the server's own path).
     *
     * @throws CatalogException {@code INVALID_LOCATION}, its context {@code field} = {@code what}
     */
    public static void checkPlaceable(String location, String what) {
        if (location == null || location.isBlank()) {
            throw new CatalogException(ErrorCode.INVALID_LOCATION, "Invalid location: it is empty").with("field", what);
        }
        if (IdOrder.wellFormedUtf8Length(location) < 0 || location.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw new CatalogException(
                            ErrorCode.INVALID_LOCATION,
                            "Invalid location: it holds a control character or is not well-formed Unicode")
                    .with("field", what);
        }
        if (hasDotSegment(location)) {
            throw new CatalogException(
                            ErrorCode.INVALID_LOCATION, "Invalid location: it has a '.' or '..' path segment")
                    .with("field", what);
        }
    }

    /**
     * Whether {@code location} is {@code root} or below it: same scheme (case-insensitive; a bare path is
     * {@code file:}), same authority, and {@code root}'s path segments are the first of its path (repeated
     * slashes count as one; {@code file:/a}, {@code file:///a} and {@code /a} are one location). Neither
     * may hold a dot segment ({@link #hasDotSegment}): this compares text, it resolves nothing.
     */
    public static boolean isInside(String location, String root) {
        Parsed inner = parse(location);
        Parsed outer = parse(root);
        // s3a://b/k and s3://b/k name one object (Hadoop's and Iceberg's names for one store), as abfs and abfss do.
        if (!StorageSchemes.sameStore(inner.scheme(), outer.scheme())
                || !inner.authority().equals(outer.authority())) {
            return false;
        }
        String innerPath = inner.path();
        String outerPath = outer.path();
        if (outerPath.isEmpty()) {
            return true;
        }
        return innerPath.equals(outerPath) || innerPath.startsWith(outerPath + "/");
    }

    /** A location's scheme, lower case; {@code file} for a bare path ({@code /a/b}). */
    public static String scheme(String location) {
        return parse(location).scheme();
    }

    /** A location's scheme (lower case; {@code file} for a bare path), authority and path (no repeated or trailing slash). */
    private record Parsed(String scheme, String authority, String path) {}

    private static Parsed parse(String location) {
        String scheme = "file";
        String rest = location;
        int colon = location.indexOf(':');
        int slash = location.indexOf('/');
        if (colon > 0 && (slash < 0 || colon < slash)) {
            scheme = location.substring(0, colon).toLowerCase(Locale.ROOT);
            rest = location.substring(colon + 1);
        }
        String authority = "";
        if (rest.startsWith("//")) {
            int end = rest.indexOf('/', 2);
            authority = end < 0 ? rest.substring(2) : rest.substring(2, end);
            rest = end < 0 ? "" : rest.substring(end);
        }
        if (scheme.equals("file") && authority.equalsIgnoreCase("localhost")) {
            authority = "";
        }
        String path = REPEATED_SLASHES.matcher(rest).replaceAll("/");
        return new Parsed(scheme, authority, stripSlash(path).equals("/") ? "" : stripSlash(path));
    }
}
