package io.treecat.rest.nativeapi;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.service.WriteSetJson;
import io.treecat.core.version.ObjectChange;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * Writes catalog objects as JSON. A value is a BSON document; it is rendered as relaxed Extended
 * JSON and embedded raw, so clients see a JSON object (not a string), and BSON types JSON lacks
 * (dates, int64 beyond 2^53, binary) keep their {@code $}-wrappers.
 */
final class Rows {
    private Rows() {}

    /** A generator that leaves the response stream for Jersey to close. */
    static JsonGenerator generator(JsonFactory factory, OutputStream output) throws IOException {
        return factory.createGenerator(output).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    /** The fields of one row, inside an object the caller has opened. */
    static void writeFields(JsonGenerator json, CatalogObject object) throws IOException {
        json.writeStringField("path", object.path().toString());
        json.writeStringField("kind", kind(object.kind()));
        json.writeNumberField("version", object.version());
        json.writeFieldName("value");
        json.writeRawValue(object.value().toJson(WriteSetJson.RELAXED));
    }

    static String kind(ObjectKind kind) {
        return switch (kind) {
            case INNER -> "inner";
            case LEAF -> "leaf";
        };
    }

    /** What a commit did, path by path: added, updated or removed. */
    static List<Change> changes(List<ObjectChange> changes) {
        return changes.stream()
                .map(change -> new Change(
                        change.path().toString(),
                        change.before() == null ? "added" : change.after() == null ? "removed" : "updated"))
                .toList();
    }

    record Change(String path, String change) {}
}
