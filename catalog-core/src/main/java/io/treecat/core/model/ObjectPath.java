package io.treecat.core.model;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.List;

/**
 * The path of an object in the catalog tree: the list of object ids from the root down.
 *
 * <p>Ids are arbitrary non-empty strings of well-formed Unicode (a lone UTF-16 surrogate has no UTF-8
 * form, so it could not be told apart in a storage key), so any Iceberg or Hive name can be an id. The text form
 * joins the ids with {@code /} and escapes {@code /} and {@code \} inside an id with a backslash:
 * the id {@code a/b} under {@code /db} is written {@code /db/a\/b}. {@link #parse} and {@link
 * #toString} are exact inverses.
 *
 * <p>Paths order by depth first, then id by id in {@link IdOrder} (UTF-8 byte order), which is
 * exactly the byte order of their storage keys.
 */
public final class ObjectPath implements Comparable<ObjectPath> {
    /** The longest path the store accepts; deeper paths are rejected as invalid. */
    public static final int MAX_DEPTH = 255;
    /** The longest id, in UTF-8 bytes. */
    public static final int MAX_ID_BYTES = 4096;

    public static final ObjectPath ROOT = new ObjectPath(ImmutableList.of(), null);

    private final ImmutableList<String> ids;
    private int hash;
    /** The text form once made: a query sends it with every row. */
    private String text;
    /** The parent's text form, when it was made before this child was: then this one's is a concatenation. */
    private final String parentText;

    /** A path of the given ids, each checked. */
    public ObjectPath(List<String> ids) {
        requireNonNull(ids, "ids is null");
        this.ids = ImmutableList.copyOf(ids);
        this.parentText = null;
        checkDepth(this.ids.size());
        for (int i = 0; i < this.ids.size(); i++) {
            checkId(this.ids.get(i), i);
        }
    }

    /** For ids already checked: navigation builds paths on every row a query returns. */
    private ObjectPath(ImmutableList<String> ids, String parentText) {
        this.ids = ids;
        this.parentText = parentText;
    }

    private static void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw new CatalogException(ErrorCode.INVALID_PATH, "Path is deeper than " + MAX_DEPTH + " levels")
                    .with("depth", depth);
        }
    }

    public List<String> ids() {
        return ids;
    }

    public static ObjectPath of(String... ids) {
        return new ObjectPath(List.of(ids));
    }

    /**
     * Parses the text form: {@code /} alone is the root, otherwise {@code /id1/id2...} with {@code \/}
     * and {@code \\} escapes inside ids.
     */
    public static ObjectPath parse(String text) {
        requireNonNull(text, "path text is null");
        if (text.isEmpty() || text.charAt(0) != '/') {
            throw invalid(text, 0, "a path starts with '/'");
        }
        if (text.equals("/")) {
            return ROOT;
        }
        // Every result of a query arrives as a path's text: an id without escapes (the common case) is one substring.
        ImmutableList.Builder<String> ids = ImmutableList.builderWithExpectedSize(8);
        int start = 1;
        while (true) {
            int end = start;
            boolean escaped = false;
            while (end < text.length() && text.charAt(end) != '/') {
                if (text.charAt(end) == '\\') {
                    if (end + 1 == text.length()) {
                        throw invalid(text, end, "a trailing '\\' escapes nothing");
                    }
                    char next = text.charAt(end + 1);
                    if (next != '/' && next != '\\') {
                        throw invalid(text, end, "only '\\/' and '\\\\' are escapes in a path");
                    }
                    escaped = true;
                    end++;
                }
                end++;
            }
            if (end == start) {
                throw invalid(text, end, "empty id");
            }
            ids.add(escaped ? unescape(text, start, end) : text.substring(start, end));
            if (end == text.length()) {
                // The checking constructor: a parsed path is input, its ids are checked like any other.
                ObjectPath path = new ObjectPath(ids.build());
                path.text = text;
                return path;
            }
            start = end + 1;
        }
    }

    /** The id between {@code start} and {@code end}, its escapes (already checked) undone. */
    private static String unescape(String text, int start, int end) {
        StringBuilder id = new StringBuilder(end - start);
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            id.append(c == '\\' ? text.charAt(++i) : c);
        }
        return id.toString();
    }

    private static CatalogException invalid(String text, int index, String problem) {
        return new CatalogException(ErrorCode.INVALID_PATH, "Invalid path at position " + (index + 1) + ": " + problem)
                .with("path", text)
                .with("position", index + 1);
    }

    private static void checkId(String id, int index) {
        requireNonNull(id, "id is null");
        if (id.isEmpty()) {
            throw new CatalogException(ErrorCode.INVALID_PATH, "Invalid path: id " + (index + 1) + " is empty");
        }
        int bytes = IdOrder.wellFormedUtf8Length(id);
        if (bytes < 0) {
            throw new CatalogException(
                    ErrorCode.INVALID_PATH,
                    "Invalid path: id " + (index + 1) + " is not well-formed Unicode (it has a lone surrogate)");
        }
        if (bytes > MAX_ID_BYTES) {
            throw new CatalogException(
                            ErrorCode.INVALID_PATH,
                            "Invalid path: id " + (index + 1) + " is longer than " + MAX_ID_BYTES + " bytes")
                    .with("idPrefix", id.substring(0, 64));
        }
    }

    public int depth() {
        return ids.size();
    }

    public boolean isRoot() {
        return ids.isEmpty();
    }

    /** The last id; the root has none. */
    public String id() {
        if (ids.isEmpty()) {
            throw new IllegalStateException("the root has no id");
        }
        return ids.get(ids.size() - 1);
    }

    public ObjectPath parent() {
        if (ids.isEmpty()) {
            throw new IllegalStateException("the root has no parent");
        }
        return new ObjectPath(ids.subList(0, ids.size() - 1), null);
    }

    public ObjectPath child(String id) {
        checkDepth(ids.size() + 1);
        checkId(id, ids.size());
        return childOfStoredId(id);
    }

    /**
     * {@link #child} for an id read back from the store, which was checked when it was written: a query makes one
     * per row.
     */
    public ObjectPath childOfStoredId(String id) {
        return new ObjectPath(
                ImmutableList.<String>builderWithExpectedSize(ids.size() + 1)
                        .addAll(ids)
                        .add(id)
                        .build(),
                text);
    }

    /** The first {@code depth} ids of this path. */
    public ObjectPath prefix(int depth) {
        return new ObjectPath(ids.subList(0, depth), null);
    }

    /** True when this path is {@code other} or one of its ancestors. */
    public boolean isAncestorOrSelf(ObjectPath other) {
        return other.ids.size() >= ids.size()
                && other.ids.subList(0, ids.size()).equals(ids);
    }

    /** Replaces the ancestor {@code from} of this path with {@code to}. */
    public ObjectPath rebase(ObjectPath from, ObjectPath to) {
        if (!from.isAncestorOrSelf(this)) {
            throw new IllegalArgumentException(from + " is not an ancestor of " + this);
        }
        checkDepth(to.ids.size() + ids.size() - from.ids.size());
        return new ObjectPath(
                ImmutableList.<String>builder()
                        .addAll(to.ids)
                        .addAll(ids.subList(from.ids.size(), ids.size()))
                        .build(),
                null);
    }

    @Override
    public boolean equals(Object other) {
        return this == other || (other instanceof ObjectPath path && ids.equals(path.ids));
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = ids.hashCode();
            hash = h;
        }
        return h;
    }

    @Override
    public int compareTo(ObjectPath other) {
        int byDepth = Integer.compare(ids.size(), other.ids.size());
        if (byDepth != 0) {
            return byDepth;
        }
        for (int i = 0; i < ids.size(); i++) {
            int byId = IdOrder.compare(ids.get(i), other.ids.get(i));
            if (byId != 0) {
                return byId;
            }
        }
        return 0;
    }

    /**
     * Makes the text form now, so that every child made after this makes its own with one concatenation: for a
     * parent whose many children are sent as text, such as a query's results.
     */
    public ObjectPath withText() {
        if (text == null) {
            text = makeText();
        }
        return this;
    }

    /** The escaped text form accepted by {@link #parse}. */
    @Override
    public String toString() {
        String made = text;
        if (made == null) {
            made = makeText();
            text = made;
        }
        return made;
    }

    private String makeText() {
        if (ids.isEmpty()) {
            return "/";
        }
        if (parentText != null) {
            StringBuilder text = new StringBuilder(parentText.length() + id().length() + 1);
            if (ids.size() > 1) {
                text.append(parentText);
            }
            appendEscaped(text, id());
            return text.toString();
        }
        StringBuilder text = new StringBuilder();
        for (String id : ids) {
            appendEscaped(text, id);
        }
        return text.toString();
    }

    private static void appendEscaped(StringBuilder text, String id) {
        text.append('/');
        if (id.indexOf('/') < 0 && id.indexOf('\\') < 0) {
            text.append(id);
            return;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c == '/' || c == '\\') {
                text.append('\\');
            }
            text.append(c);
        }
    }
}
