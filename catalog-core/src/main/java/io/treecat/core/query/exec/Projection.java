package io.treecat.core.query.exec;

import io.treecat.core.model.RawBson;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The dotted fields a query keeps of each value, compiled once per query. A value read from storage
 * is raw BSON: it is projected in one pass over its bytes, copying the kept elements as they are,
 * and the result is raw too, so the wire sends it without encoding it again. Looking each field up
 * with {@code RawBsonDocument.get} instead decodes every field name before it, once per projected
 * field: with the dozen fields of a file's planning view that was half of a path query's time.
 *
 * <p>Kept fields come in the order the projection first names them, nested ones inside their
 * parent; a name kept whole covers every field under it. A field missing from a value, or under a
 * parent that is not a document, is left out. The first of two equal names in a value is the one
 * kept.
 *
 * <p>Not thread safe: it keeps scratch space for the value it is projecting, and serves one cursor.
 */
final class Projection {
    private static final int WHOLE = -1;

    /** One name at one level: kept whole, or only the nested names of {@code children}. */
    private static final class Entry {
        final String name;
        final byte[] utf8;
        Projection children;

        Entry(String name) {
            this.name = name;
            this.utf8 = name.getBytes(StandardCharsets.UTF_8);
        }

        boolean whole() {
            return children == null;
        }
    }

    private final List<Entry> entries = new ArrayList<>();
    /**
     * For each name length in bytes, the indexes of the entries of that length: most names in a value are told apart
     * by their length alone, and the others by one comparison.
     */
    private int[][] byLength;
    /** Where each entry's element starts and ends in the value being projected; one value at a time, as a cursor. */
    private int[] from;

    private int[] to;

    private Projection() {}

    static Projection of(List<String> fields) {
        Projection root = new Projection();
        for (String field : fields) {
            String[] names = field.split("\\.");
            Projection level = root;
            for (int i = 0; i < names.length; i++) {
                Entry entry = level.entry(names[i]);
                boolean last = i == names.length - 1;
                if (entry == null) {
                    entry = new Entry(names[i]);
                    entry.children = last ? null : new Projection();
                    level.entries.add(entry);
                } else if (entry.whole()) {
                    break; // the parent is kept whole already
                } else if (last) {
                    entry.children = null;
                }
                if (last) {
                    break;
                }
                level = entry.children;
            }
        }
        root.index();
        return root;
    }

    private void index() {
        int longest = 0;
        for (Entry entry : entries) {
            longest = Math.max(longest, entry.utf8.length);
        }
        byLength = new int[longest + 1][];
        for (int i = 0; i < entries.size(); i++) {
            int length = entries.get(i).utf8.length;
            int[] same = byLength[length] == null ? new int[0] : byLength[length];
            same = Arrays.copyOf(same, same.length + 1);
            same[same.length - 1] = i;
            byLength[length] = same;
            if (entries.get(i).children != null) {
                entries.get(i).children.index();
            }
        }
        from = new int[entries.size()];
        to = new int[entries.size()];
    }

    private Entry entry(String name) {
        for (Entry entry : entries) {
            if (entry.name.equals(name)) {
                return entry;
            }
        }
        return null;
    }

    BsonDocument apply(BsonDocument value) {
        if (value instanceof RawBsonDocument raw) {
            ByteBuffer buffer = raw.getByteBuffer().asNIO();
            if (buffer.hasArray()) {
                byte[] bytes = buffer.array();
                int start = buffer.arrayOffset() + buffer.position();
                int bound = locate(bytes, start);
                if (bound > 0) {
                    byte[] out = new byte[bound];
                    int length = write(bytes, out, 0);
                    if (length > 0) {
                        return new RawBsonDocument(out, 0, length);
                    }
                }
            }
        }
        return applyToDocument(value);
    }

    /**
     * Writes the projection of a nested document at {@code start} into {@code out} at {@code at}, and answers its
     * length; -1 for an element type it cannot skip. The enclosing level's {@link #locate} counted the nested document
     * whole, and its projection is never longer, so {@code out} has room.
     */
    private int projectRaw(byte[] bytes, int start, byte[] out, int at) {
        return locate(bytes, start) < 0 ? -1 : write(bytes, out, at);
    }

    /**
     * Finds the kept elements of the document at {@code start}, and answers the most bytes their projection takes
     * (what the kept elements take, the nested ones whole); -1 for an element type it cannot skip. Allocating that,
     * rather than the whole value, spares zeroing the statistics a planning projection leaves out.
     */
    private int locate(byte[] bytes, int start) {
        int end = start + RawBson.intAt(bytes, start) - 1; // the document's trailing 0
        int count = entries.size();
        int[] from = this.from;
        int[] to = this.to;
        Arrays.fill(from, WHOLE);
        int found = 0;
        int position = start + 4;
        while (position < end && found < count) {
            byte type = bytes[position];
            int nameStart = position + 1;
            int nameLength = RawBson.cstringLength(bytes, nameStart) - 1;
            int valueStart = nameStart + nameLength + 1;
            int valueLength = RawBson.valueLength(type, bytes, valueStart);
            if (valueLength < 0) {
                return -1;
            }
            int next = valueStart + valueLength;
            int index = find(bytes, nameStart, nameLength);
            if (index >= 0 && from[index] == WHOLE) {
                // The first element of this name decides, whether or not it is kept.
                from[index] = position;
                to[index] = entries.get(index).whole() || type == 0x03 ? next : position;
                found++;
            }
            position = next;
        }
        int bound = 5;
        for (int i = 0; i < count; i++) {
            if (from[i] != WHOLE) {
                bound += to[i] - from[i];
            }
        }
        return bound;
    }

    /** Writes the elements {@link #locate} found into {@code out} at {@code at}; answers the length, or -1. */
    private int write(byte[] bytes, byte[] out, int at) {
        int count = entries.size();
        int[] from = this.from;
        int[] to = this.to;
        int written = at + 4;
        for (int i = 0; i < count; i++) {
            if (from[i] == WHOLE || to[i] == from[i]) {
                continue;
            }
            Entry entry = entries.get(i);
            if (entry.whole()) {
                System.arraycopy(bytes, from[i], out, written, to[i] - from[i]);
                written += to[i] - from[i];
                continue;
            }
            int header = 2 + entry.utf8.length;
            int valueStart = from[i] + header;
            int inner = entry.children.projectRaw(bytes, valueStart, out, written + header);
            if (inner < 0) {
                return -1;
            }
            if (inner > 5) {
                // Type, name and 0 as in the value, then the nested projection already written after them.
                System.arraycopy(bytes, from[i], out, written, header);
                written += header + inner;
            }
        }
        out[written++] = 0;
        int length = written - at;
        out[at] = (byte) length;
        out[at + 1] = (byte) (length >>> 8);
        out[at + 2] = (byte) (length >>> 16);
        out[at + 3] = (byte) (length >>> 24);
        return length;
    }

    private int find(byte[] bytes, int nameStart, int nameLength) {
        if (nameLength >= byLength.length || byLength[nameLength] == null) {
            return -1;
        }
        candidates:
        for (int i : byLength[nameLength]) {
            // Names are short: a plain loop beats Arrays.equals's set-up.
            byte[] name = entries.get(i).utf8;
            for (int k = 0; k < nameLength; k++) {
                if (bytes[nameStart + k] != name[k]) {
                    continue candidates;
                }
            }
            return i;
        }
        return -1;
    }

    /** The same projection over a decoded document: values built in memory, or a raw one of an unknown type. */
    private BsonDocument applyToDocument(BsonDocument value) {
        BsonDocument projected = new BsonDocument();
        for (Entry entry : entries) {
            BsonValue found = value.get(entry.name);
            if (found == null) {
                continue;
            }
            if (entry.whole()) {
                projected.put(entry.name, found);
            } else if (found.isDocument()) {
                BsonDocument inner = entry.children.applyToDocument(found.asDocument());
                if (!inner.isEmpty()) {
                    projected.put(entry.name, inner);
                }
            }
        }
        return projected;
    }
}
