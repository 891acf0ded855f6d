package io.treecat.lakehouse.iceberg;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.TreeNode;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.apache.iceberg.Snapshot;

/**
 * The generator {@link MetadataJson} hands to Iceberg's {@code TableMetadataParser}: it passes every call through,
 * except inside the top-level {@code snapshots} array. There each snapshot object Iceberg's {@code SnapshotParser}
 * writes is swallowed call by call, its {@code snapshot-id} noted, and at its end the snapshot's JSON, encoded once
 * before, is written in its place as it is. Iceberg writes the snapshots in the metadata's order, so the n-th object
 * is the n-th snapshot's; its id is checked all the same. So a commit encodes only the snapshots it added: a table's history is
 * most of its metadata, and encoding all of it again was the largest share of a commit's CPU on a busy table.
 *
 * <p>Written for what {@code SnapshotParser} calls (objects, arrays, field names, strings and numbers); any other
 * call inside a snapshot, a snapshot without an id or with another id than the one in its place, throws {@link Mismatch}, and the
 * caller serializes the metadata the plain way. The output equals Iceberg's (`TestMetadataJson` compares the bytes).
 */
final class SnapshotSplicingGenerator extends JsonGeneratorDelegate {
    private static final String SNAPSHOTS = "snapshots";
    private static final String SNAPSHOT_ID = "snapshot-id";

    /** The document is not the shape this generator expects: serialize it the plain way. */
    static final class Mismatch extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message);
        }
    }

    private final List<Snapshot> snapshots;
    private final List<SerializableString> snapshotJson;
    /** How many snapshots were written. */
    private int written;

    /** Objects and arrays open in the output, the top-level metadata object being 1. */
    private int depth;
    /** The last field name written at depth 1 (the metadata object's own fields). */
    private String topField;
    /** Whether the top-level {@code snapshots} array is open. */
    private boolean inSnapshots;
    /** Objects and arrays open inside the snapshot being replaced; 0 when none is. */
    private int skipped;
    /** The last field name of the snapshot being replaced, at its own level. */
    private String snapshotField;

    private Long snapshotId;

    /** @param snapshotJson each of {@code snapshots}' JSON, in the same order */
    SnapshotSplicingGenerator(JsonGenerator delegate, List<Snapshot> snapshots, List<SerializableString> snapshotJson) {
        super(delegate, false);
        if (snapshots.size() != snapshotJson.size()) {
            throw new IllegalArgumentException(
                    "One JSON per snapshot: " + snapshots.size() + " snapshots, " + snapshotJson.size() + " JSON");
        }
        this.snapshots = snapshots;
        this.snapshotJson = snapshotJson;
    }

    private boolean skipping() {
        return skipped > 0;
    }

    private static Mismatch unexpected(String call) {
        return new Mismatch("Unexpected " + call + " inside a snapshot");
    }

    // ---- structure

    @Override
    public void writeStartObject() throws IOException {
        if (skipping()) {
            skipped++;
        } else if (inSnapshots && depth == 2) {
            skipped = 1;
            snapshotField = null;
            snapshotId = null;
        } else {
            depth++;
            super.writeStartObject();
        }
    }

    @Override
    public void writeStartObject(Object forValue) throws IOException {
        if (skipping() || inSnapshots) {
            throw unexpected("writeStartObject(Object)");
        }
        depth++;
        super.writeStartObject(forValue);
    }

    @Override
    public void writeStartObject(Object forValue, int size) throws IOException {
        if (skipping() || inSnapshots) {
            throw unexpected("writeStartObject(Object, int)");
        }
        depth++;
        super.writeStartObject(forValue, size);
    }

    @Override
    public void writeEndObject() throws IOException {
        if (!skipping()) {
            depth--;
            super.writeEndObject();
            return;
        }
        skipped--;
        if (skipped == 0) {
            if (written >= snapshots.size()
                    || snapshotId == null
                    || snapshotId != snapshots.get(written).snapshotId()) {
                throw new Mismatch("Snapshot " + snapshotId + " is not the one in place " + written);
            }
            delegate.writeRawValue(snapshotJson.get(written++));
        }
    }

    @Override
    public void writeStartArray() throws IOException {
        if (skipping()) {
            skipped++;
            return;
        }
        depth++;
        inSnapshots = depth == 2 && SNAPSHOTS.equals(topField);
        super.writeStartArray();
    }

    @Override
    public void writeStartArray(int size) throws IOException {
        if (skipping()) {
            skipped++;
            return;
        }
        depth++;
        inSnapshots = depth == 2 && SNAPSHOTS.equals(topField);
        super.writeStartArray(size);
    }

    @Override
    public void writeStartArray(Object forValue) throws IOException {
        if (skipping()) {
            throw unexpected("writeStartArray(Object)");
        }
        depth++;
        inSnapshots = depth == 2 && SNAPSHOTS.equals(topField);
        super.writeStartArray(forValue);
    }

    @Override
    public void writeStartArray(Object forValue, int size) throws IOException {
        if (skipping()) {
            throw unexpected("writeStartArray(Object, int)");
        }
        depth++;
        inSnapshots = depth == 2 && SNAPSHOTS.equals(topField);
        super.writeStartArray(forValue, size);
    }

    @Override
    public void writeEndArray() throws IOException {
        if (skipping()) {
            skipped--;
            if (skipped == 0) {
                throw unexpected("end of an array");
            }
            return;
        }
        if (depth == 2) {
            inSnapshots = false;
        }
        depth--;
        super.writeEndArray();
    }

    // ---- names and the values SnapshotParser writes

    @Override
    public void writeFieldName(String name) throws IOException {
        if (skipping()) {
            if (skipped == 1) {
                snapshotField = name;
            }
            return;
        }
        if (depth == 1) {
            topField = name;
        }
        super.writeFieldName(name);
    }

    @Override
    public void writeFieldName(SerializableString name) throws IOException {
        writeFieldName(name.getValue());
    }

    @Override
    public void writeString(String text) throws IOException {
        if (!skipping()) {
            super.writeString(text);
        }
    }

    @Override
    public void writeNumber(long value) throws IOException {
        if (!skipping()) {
            super.writeNumber(value);
        } else if (skipped == 1 && SNAPSHOT_ID.equals(snapshotField)) {
            snapshotId = value;
        }
    }

    @Override
    public void writeNumber(int value) throws IOException {
        if (!skipping()) {
            super.writeNumber(value);
        } else if (skipped == 1 && SNAPSHOT_ID.equals(snapshotField)) {
            snapshotId = (long) value;
        }
    }

    // ---- every other write: passed through outside a snapshot, refused inside one

    @Override
    public void writeFieldId(long id) throws IOException {
        checkNotSkipping("writeFieldId");
        super.writeFieldId(id);
    }

    @Override
    public void writeString(Reader reader, int length) throws IOException {
        checkNotSkipping("writeString(Reader)");
        super.writeString(reader, length);
    }

    @Override
    public void writeString(char[] text, int offset, int length) throws IOException {
        checkNotSkipping("writeString(char[])");
        super.writeString(text, offset, length);
    }

    @Override
    public void writeString(SerializableString text) throws IOException {
        checkNotSkipping("writeString(SerializableString)");
        super.writeString(text);
    }

    @Override
    public void writeRawUTF8String(byte[] text, int offset, int length) throws IOException {
        checkNotSkipping("writeRawUTF8String");
        super.writeRawUTF8String(text, offset, length);
    }

    @Override
    public void writeUTF8String(byte[] text, int offset, int length) throws IOException {
        checkNotSkipping("writeUTF8String");
        super.writeUTF8String(text, offset, length);
    }

    @Override
    public void writeArray(int[] array, int offset, int length) throws IOException {
        checkNotSkipping("writeArray");
        super.writeArray(array, offset, length);
    }

    @Override
    public void writeArray(long[] array, int offset, int length) throws IOException {
        checkNotSkipping("writeArray");
        super.writeArray(array, offset, length);
    }

    @Override
    public void writeArray(double[] array, int offset, int length) throws IOException {
        checkNotSkipping("writeArray");
        super.writeArray(array, offset, length);
    }

    @Override
    public void writeArray(String[] array, int offset, int length) throws IOException {
        checkNotSkipping("writeArray");
        super.writeArray(array, offset, length);
    }

    @Override
    public void writeRaw(String text) throws IOException {
        checkNotSkipping("writeRaw");
        super.writeRaw(text);
    }

    @Override
    public void writeRaw(String text, int offset, int length) throws IOException {
        checkNotSkipping("writeRaw");
        super.writeRaw(text, offset, length);
    }

    @Override
    public void writeRaw(SerializableString raw) throws IOException {
        checkNotSkipping("writeRaw");
        super.writeRaw(raw);
    }

    @Override
    public void writeRaw(char[] text, int offset, int length) throws IOException {
        checkNotSkipping("writeRaw");
        super.writeRaw(text, offset, length);
    }

    @Override
    public void writeRaw(char c) throws IOException {
        checkNotSkipping("writeRaw");
        super.writeRaw(c);
    }

    @Override
    public void writeRawValue(String text) throws IOException {
        checkNotSkipping("writeRawValue");
        super.writeRawValue(text);
    }

    @Override
    public void writeRawValue(String text, int offset, int length) throws IOException {
        checkNotSkipping("writeRawValue");
        super.writeRawValue(text, offset, length);
    }

    @Override
    public void writeRawValue(char[] text, int offset, int length) throws IOException {
        checkNotSkipping("writeRawValue");
        super.writeRawValue(text, offset, length);
    }

    @Override
    public void writeRawValue(SerializableString raw) throws IOException {
        checkNotSkipping("writeRawValue");
        super.writeRawValue(raw);
    }

    @Override
    public void writeBinary(Base64Variant variant, byte[] data, int offset, int length) throws IOException {
        checkNotSkipping("writeBinary");
        super.writeBinary(variant, data, offset, length);
    }

    @Override
    public int writeBinary(Base64Variant variant, InputStream data, int length) throws IOException {
        checkNotSkipping("writeBinary");
        return super.writeBinary(variant, data, length);
    }

    @Override
    public void writeNumber(short value) throws IOException {
        checkNotSkipping("writeNumber(short)");
        super.writeNumber(value);
    }

    @Override
    public void writeNumber(BigInteger value) throws IOException {
        checkNotSkipping("writeNumber(BigInteger)");
        super.writeNumber(value);
    }

    @Override
    public void writeNumber(double value) throws IOException {
        checkNotSkipping("writeNumber(double)");
        super.writeNumber(value);
    }

    @Override
    public void writeNumber(float value) throws IOException {
        checkNotSkipping("writeNumber(float)");
        super.writeNumber(value);
    }

    @Override
    public void writeNumber(BigDecimal value) throws IOException {
        checkNotSkipping("writeNumber(BigDecimal)");
        super.writeNumber(value);
    }

    @Override
    public void writeNumber(String encoded) throws IOException {
        checkNotSkipping("writeNumber(String)");
        super.writeNumber(encoded);
    }

    @Override
    public void writeNumber(char[] encoded, int offset, int length) throws IOException {
        checkNotSkipping("writeNumber(char[])");
        super.writeNumber(encoded, offset, length);
    }

    @Override
    public void writeBoolean(boolean state) throws IOException {
        checkNotSkipping("writeBoolean");
        super.writeBoolean(state);
    }

    @Override
    public void writeNull() throws IOException {
        checkNotSkipping("writeNull");
        super.writeNull();
    }

    @Override
    public void writeOmittedField(String fieldName) throws IOException {
        checkNotSkipping("writeOmittedField");
        super.writeOmittedField(fieldName);
    }

    @Override
    public void writeObjectId(Object id) throws IOException {
        checkNotSkipping("writeObjectId");
        super.writeObjectId(id);
    }

    @Override
    public void writeObjectRef(Object id) throws IOException {
        checkNotSkipping("writeObjectRef");
        super.writeObjectRef(id);
    }

    @Override
    public void writeTypeId(Object id) throws IOException {
        checkNotSkipping("writeTypeId");
        super.writeTypeId(id);
    }

    @Override
    public void writeEmbeddedObject(Object object) throws IOException {
        checkNotSkipping("writeEmbeddedObject");
        super.writeEmbeddedObject(object);
    }

    @Override
    public void writePOJO(Object pojo) throws IOException {
        checkNotSkipping("writePOJO");
        super.writePOJO(pojo);
    }

    @Override
    public void writeObject(Object pojo) throws IOException {
        checkNotSkipping("writeObject");
        super.writeObject(pojo);
    }

    @Override
    public void writeTree(TreeNode tree) throws IOException {
        checkNotSkipping("writeTree");
        super.writeTree(tree);
    }

    @Override
    public void copyCurrentEvent(JsonParser parser) throws IOException {
        checkNotSkipping("copyCurrentEvent");
        super.copyCurrentEvent(parser);
    }

    @Override
    public void copyCurrentStructure(JsonParser parser) throws IOException {
        checkNotSkipping("copyCurrentStructure");
        super.copyCurrentStructure(parser);
    }

    private void checkNotSkipping(String call) {
        if (skipping()) {
            throw unexpected(call);
        }
    }
}
