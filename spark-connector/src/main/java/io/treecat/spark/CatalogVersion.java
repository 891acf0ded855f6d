package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The version of a TreeCat catalog a Spark catalog reads: the newest (live, writable), or one version of the
 * whole catalog (read-only) named by a vid, by "now" (the newest vid, taken once), by a named snapshot, or by
 * a time. A past version is served by the REST prefix {@code <catalog>@<vid>}, {@code <catalog>@snapshot=<name>}
 * or {@code <catalog>@time=<RFC 3339 time>} (docs/iceberg-rest.md, "Reading a past version"), so every table of
 * the catalog loads, lists and plans at that one version.
 */
public sealed interface CatalogVersion {
    /** The catalog option naming a vid, or {@code now}. */
    String VID = "vid";
    /** The catalog option naming a snapshot made with TreeCat's snapshot API. */
    String SNAPSHOT = "snapshot";
    /** The catalog option naming a time: the newest vid committed at or before it. */
    String TIMESTAMP = "timestamp";

    List<String> OPTIONS = List.of(VID, SNAPSHOT, TIMESTAMP);

    /** The newest version, writable. */
    record Latest() implements CatalogVersion {}

    /** The newest vid when the catalog is set up, then that vid for every later read. */
    record Now() implements CatalogVersion {}

    record Vid(long vid) implements CatalogVersion {
        public Vid {
            if (vid < 0) {
                throw new IllegalArgumentException("A vid is not negative: " + vid);
            }
        }
    }

    record Snapshot(String name) implements CatalogVersion {
        public Snapshot {
            requireNonNull(name, "name is null");
        }
    }

    record Time(OffsetDateTime time) implements CatalogVersion {
        public Time {
            requireNonNull(time, "time is null");
        }
    }

    CatalogVersion LATEST = new Latest();

    /**
     * Reads the version from a Spark catalog's options ({@value #VID}, {@value #SNAPSHOT}, {@value #TIMESTAMP};
     * at most one of them). A malformed value fails here, naming the option, before any request is sent.
     */
    static CatalogVersion fromOptions(String catalogName, Map<String, String> options) {
        List<String> given = new ArrayList<>();
        for (String option : OPTIONS) {
            if (options.get(option) != null) {
                given.add(option);
            }
        }
        if (given.isEmpty()) {
            return LATEST;
        }
        if (given.size() > 1) {
            throw new IllegalArgumentException(String.format(
                    "Catalog %s: the options %s each name a version to read; set only one of them",
                    catalogName, String.join(", ", given)));
        }
        String option = given.get(0);
        String value = options.get(option).trim();
        String key = "spark.sql.catalog." + catalogName + "." + option;
        switch (option) {
            case VID -> {
                if (value.toLowerCase(Locale.ROOT).equals("now")) {
                    return new Now();
                }
                if (value.isEmpty() || !value.chars().allMatch(c -> c >= '0' && c <= '9') || value.length() > 18) {
                    throw new IllegalArgumentException(String.format(
                            "Invalid %s '%s': expected a vid (a non-negative integer) or 'now'", key, value));
                }
                return new Vid(Long.parseLong(value));
            }
            case SNAPSHOT -> {
                if (value.isEmpty()) {
                    throw new IllegalArgumentException(String.format("Invalid %s: empty snapshot name", key));
                }
                return new Snapshot(value);
            }
            default -> {
                try {
                    return new Time(OffsetDateTime.parse(value));
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException(
                            String.format(
                                    "Invalid %s '%s': expected an RFC 3339 time with an offset, e.g. 2026-11-24T09:00:00Z",
                                    key, value),
                            e);
                }
            }
        }
    }

    /** Whether this version is a past one, where every write is refused. */
    default boolean readOnly() {
        return !(this instanceof Latest);
    }

    /**
     * The REST prefix (the Iceberg client's {@code warehouse}) that serves {@code catalog} at this version.
     * {@link Now} must be resolved to a {@link Vid} first.
     */
    default String prefix(String catalog) {
        requireNonNull(catalog, "catalog is null");
        if (catalog.indexOf('@') >= 0) {
            throw new IllegalArgumentException(
                    "The warehouse '" + catalog + "' already names a version; drop its '@…' or the version option");
        }
        if (this instanceof Latest) {
            return catalog;
        }
        if (this instanceof Vid vid) {
            return catalog + "@" + vid.vid();
        }
        if (this instanceof Snapshot snapshot) {
            // The Iceberg client puts the prefix into its paths as it is; the server decodes the segment.
            return catalog + "@snapshot=" + pathEncoded(snapshot.name());
        }
        if (this instanceof Time time) {
            return catalog + "@time=" + time.time().toInstant();
        }
        throw new IllegalStateException("'now' is resolved to a vid before it names a prefix");
    }

    /** Percent-encodes all but RFC 3986's unreserved characters, so that any name is one path segment. */
    static String pathEncoded(String text) {
        StringBuilder encoded = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                encoded.append(c);
            } else {
                encoded.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)));
                encoded.append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return encoded.toString();
    }
}
