package io.treecat.lakehouse.model;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.IdOrder;
import io.treecat.lakehouse.storage.Locations;
import java.util.List;
import java.util.Set;

/**
 * The rule every new lake name passes, whichever interface creates the object: a catalog, a namespace
 * (every level), a table or a view. Checked by the lake operations before their transaction starts,
 * and again at commit for every writer ({@link LakeObjectValidator}), so an adapter that stages lake
 * objects itself (the HMS, the native API) gets the same rule.
 *
 * <p>A name is refused when it is:
 * <ul>
 *   <li>empty;</li>
 *   <li>{@code .} or {@code ..}, or holding such a part between slashes ({@code ../x}, {@code a/./b}): HTTP
 *       normalizes both out of a URL path; as path segments neither names a child, and a reader that
 *       percent-decodes a location would see the parts of an escaped name as segments;</li>
 *   <li>not well-formed Unicode (a lone UTF-16 surrogate): it has no UTF-8 form, so it could be neither
 *       stored apart from other names nor written to a file system;</li>
 *   <li>holding a control character, U+0000–U+001F or U+007F: Iceberg REST joins namespace levels with
 *       U+001F, so such a name could never be loaded or dropped again, and none is a valid file name
 *       everywhere;</li>
 *   <li>longer than {@link #maxBytes()} bytes of UTF-8 (default 255, the longest file name of common file
 *       systems and HDFS, since a name becomes a directory of its default location);</li>
 *   <li>for a namespace, table or view, one of the {@link #RESERVED} ids of the areas TreeCat keeps beside them
 *       ({@code .hive_txns}, {@code .hive_locks}, {@code .hive_events}, {@code .purges}, {@code .functions}); for a
 *       catalog, one of {@link #RESERVED_CATALOGS} ({@code .idempotency_keys}, {@code .system}): a user's object there would take
 *       the area's place, and, for instance, stop every later drop with purge in its catalog.</li>
 * </ul>
 * A name's escaped path segment ({@link Locations#segment}: {@code %}, {@code /} and {@code \} take three
 * bytes) must also fit in {@link Locations#MAX_SEGMENT_BYTES}, so the directory of every default location
 * can be made.
 * Everything else Iceberg allows is kept, {@code /}, {@code \} and {@code %} included: where such a name
 * becomes a path segment of a default location, the segment is escaped
 * ({@link io.treecat.lakehouse.storage.Locations#segment}). Objects that already exist keep whatever
 * name they have; only new names are checked.
 *
 * @param maxBytes the longest name, in bytes of UTF-8
 */
public record LakeNames(int maxBytes) {
    /** The default longest name: 255 bytes, the longest file name of ext4, XFS, APFS and NTFS (in UTF-16 units). */
    public static final int DEFAULT_MAX_BYTES = 255;

    public static final LakeNames DEFAULT = new LakeNames(DEFAULT_MAX_BYTES);

    /** The kinds a refusal names (context key {@code kind}). */
    public static final String CATALOG = "catalog";

    public static final String NAMESPACE = "namespace";
    public static final String TABLE = "table";
    public static final String VIEW = "view";

    /**
     * The ids of the areas TreeCat keeps among a catalog's namespaces or a namespace's tables, refused as names of
     * new namespaces, tables and views.
     */
    public static final Set<String> RESERVED = Set.of(
            LakeKeys.HIVE_TRANSACTIONS_ID,
            LakeKeys.HIVE_LOCKS_ID,
            LakeKeys.HIVE_EVENTS_ID,
            LakeKeys.PURGE_QUEUE_ID,
            LakeKeys.FUNCTIONS_ID);

    /** The ids of the areas TreeCat keeps among the catalogs, refused as names of new catalogs. */
    public static final Set<String> RESERVED_CATALOGS = Set.of(LakeKeys.IDEMPOTENCY_KEYS_ID, LakeKeys.SYSTEM_ID);

    /** How much of a refused name its error repeats. */
    private static final int SHOWN_CHARACTERS = 100;

    /** At most {@link Locations#MAX_SEGMENT_BYTES}: a name is a path segment of its default location. */
    public LakeNames {
        if (maxBytes < 1 || maxBytes > Locations.MAX_SEGMENT_BYTES) {
            throw new IllegalArgumentException(
                    "maxBytes must be between 1 and " + Locations.MAX_SEGMENT_BYTES + ": " + maxBytes);
        }
    }

    /**
     * Checks a new name of {@code kind} ({@link #CATALOG}, {@link #NAMESPACE}, {@link #TABLE}, {@link #VIEW}).
     *
     * @throws CatalogException {@code INVALID_NAME}, its context the {@code kind}, the {@code name} (printable,
     *     shortened) and what was wrong
     */
    public void check(String kind, String name) {
        if (name == null || name.isEmpty()) {
            throw invalid(kind, "", "it is empty");
        }
        if (hasDotPart(name)) {
            throw invalid(kind, name, "it is '.' or '..', or has such a part between slashes");
        }
        if (CATALOG.equals(kind) ? RESERVED_CATALOGS.contains(name) : RESERVED.contains(name)) {
            throw invalid(kind, name, "it is reserved for TreeCat's own use");
        }
        int bytes = IdOrder.wellFormedUtf8Length(name);
        if (bytes < 0) {
            throw invalid(kind, name, "it is not well-formed Unicode (it has a lone surrogate)");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                throw invalid(kind, name, "it holds a control character").with("position", i + 1);
            }
        }
        if (bytes > maxBytes) {
            throw invalid(kind, name, "it is longer than " + maxBytes + " bytes of UTF-8")
                    .with("bytes", bytes)
                    .with("maxBytes", maxBytes);
        }
        int segmentBytes = IdOrder.utf8Length(Locations.segment(name));
        if (segmentBytes > Locations.MAX_SEGMENT_BYTES) {
            throw invalid(
                            kind,
                            name,
                            "as a path segment of its location (escaped) it is longer than "
                                    + Locations.MAX_SEGMENT_BYTES + " bytes")
                    .with("bytes", segmentBytes);
        }
    }

    /** Checks every level of a new namespace (its parents' levels too: each becomes a path segment). */
    public void checkNamespace(List<String> levels) {
        if (levels.isEmpty()) {
            throw invalid(NAMESPACE, "", "it is empty");
        }
        levels.forEach(level -> check(NAMESPACE, level));
    }

    /** Whether the name, or a part of it between {@code /} or {@code \\} characters, is {@code .} or {@code ..}. */
    private static boolean hasDotPart(String name) {
        int start = 0;
        for (int i = 0; i <= name.length(); i++) {
            if (i == name.length() || name.charAt(i) == '/' || name.charAt(i) == '\\') {
                int length = i - start;
                if ((length == 1 || length == 2) && name.startsWith(length == 1 ? "." : "..", start)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    private static CatalogException invalid(String kind, String name, String problem) {
        return new CatalogException(ErrorCode.INVALID_NAME, "Invalid " + kind + " name: " + problem)
                .with("kind", kind)
                .with("name", printable(name));
    }

    /**
     * {@code name} as an error may repeat it: control characters and lone surrogates as {@code \}{@code uXXXX},
     * at most {@value #SHOWN_CHARACTERS} characters (then {@code …}).
     */
    public static String printable(String name) {
        StringBuilder shown = new StringBuilder();
        int i = 0;
        while (i < name.length() && i < SHOWN_CHARACTERS) {
            char c = name.charAt(i);
            boolean pair = Character.isHighSurrogate(c)
                    && i + 1 < name.length()
                    && Character.isLowSurrogate(name.charAt(i + 1));
            if (pair) {
                shown.append(c).append(name.charAt(i + 1));
                i += 2;
                continue;
            }
            if (c < 0x20 || c == 0x7F || Character.isSurrogate(c)) {
                shown.append(String.format("\\u%04X", (int) c));
            } else {
                shown.append(c);
            }
            i++;
        }
        return i < name.length() ? shown.append('…').toString() : shown.toString();
    }
}
