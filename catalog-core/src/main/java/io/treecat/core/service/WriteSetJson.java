package io.treecat.core.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;

/**
 * The JSON form of a write set, shared by the HTTP mirror and the command line:
 *
 * <pre>
 * {"writes": [
 *   {"op": "add",    "path": "/retail/sales", "kind": "inner", "value": {"obj_type": "table"}},
 *   {"op": "update", "path": "/retail/sales", "kind": "inner", "value": {...}},
 *   {"op": "merge",  "path": "/retail/sales", "delta": {"files": {"op": "+", "val": 1}}},
 *   {"op": "remove", "path": "/retail/old"},
 *   {"op": "clone",  "source": "/retail", "path": "/retail_dev", "vid": 42}
 * ]}
 * </pre>
 *
 * <p>Values are MongoDB Extended JSON (relaxed or canonical). {@code kind} defaults to {@code
 * inner}; a clone's {@code vid} defaults to the newest. Every error names the write's index.
 */
public final class WriteSetJson {
    /** Renders BSON values as relaxed Extended JSON: plain numbers and strings where JSON has them. */
    public static final JsonWriterSettings RELAXED =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private static final Set<String> OPS = Set.of("add", "update", "merge", "remove", "clone");

    private WriteSetJson() {}

    /**
     * Parses a write set.
     *
     * @param newestVid the vid a clone without {@code vid} copies from
     */
    public static WriteSet parse(String json, long newestVid) {
        return parse(json, newestVid, JsonLimits.DEFAULTS);
    }

    /**
     * Parses a write set within {@code limits}. The text is read through once with Jackson first: it
     * must be strict JSON (as relaxed and canonical Extended JSON are), with no field given twice in
     * one object and within the limits, before org.bson's reader, which recurses once per level,
     * builds the values.
     *
     * @throws CatalogException {@code INVALID_REQUEST} naming the limit the text passes;
     *     {@code INVALID_WRITE_SET} for text that is not a write set
     */
    public static WriteSet parse(String json, long newestVid, JsonLimits limits) {
        try {
            limits.check(json);
        } catch (JsonProcessingException e) {
            CatalogException invalid = new CatalogException(
                    ErrorCode.INVALID_WRITE_SET, "The write set is not a JSON object: " + e.getOriginalMessage());
            if (e.getLocation() != null) {
                invalid.with("line", e.getLocation().getLineNr())
                        .with("column", e.getLocation().getColumnNr());
            }
            throw invalid;
        }
        BsonDocument document;
        try {
            document = BsonDocument.parse(json);
        } catch (JsonParseException | IllegalArgumentException | org.bson.BsonInvalidOperationException e) {
            throw new CatalogException(
                    ErrorCode.INVALID_WRITE_SET, "The write set is not a JSON object: " + e.getMessage());
        }
        BsonValue writes = document.get("writes");
        if (writes == null || !writes.isArray()) {
            throw new CatalogException(ErrorCode.INVALID_WRITE_SET, "The write set needs a \"writes\" array");
        }
        List<WriteOp> ops = new ArrayList<>();
        BsonArray array = writes.asArray();
        for (int i = 0; i < array.size(); i++) {
            if (!array.get(i).isDocument()) {
                throw invalid(i, "a write must be an object");
            }
            ops.add(parseOp(array.get(i).asDocument(), i, newestVid));
        }
        return new WriteSet(ops);
    }

    private static WriteOp parseOp(BsonDocument write, int index, long newestVid) {
        String op = string(write, "op", index).toLowerCase(Locale.ROOT);
        if (!OPS.contains(op)) {
            throw invalid(index, "unknown op \"" + op + "\" (use add, update, merge, remove or clone)");
        }
        ObjectPath path = path(write, "path", index);
        switch (op) {
            case "add":
                return new WriteOp.Add(path, kind(write, index), document(write, "value", index));
            case "update":
                return new WriteOp.Update(path, kind(write, index), document(write, "value", index));
            case "merge":
                return new WriteOp.Merge(path, document(write, "delta", index));
            case "remove":
                return new WriteOp.Remove(path);
            default:
                BsonValue vid = write.get("vid");
                if (vid != null && !(vid.isInt32() || vid.isInt64())) {
                    throw invalid(index, "\"vid\" must be an integer");
                }
                return new WriteOp.Clone(
                        path(write, "source", index),
                        path,
                        vid == null ? newestVid : vid.asNumber().longValue());
        }
    }

    private static String string(BsonDocument write, String field, int index) {
        BsonValue value = write.get(field);
        if (value == null || !value.isString()) {
            throw invalid(index, "\"" + field + "\" must be a string");
        }
        return value.asString().getValue();
    }

    private static ObjectPath path(BsonDocument write, String field, int index) {
        try {
            return ObjectPath.parse(string(write, field, index));
        } catch (CatalogException e) {
            if (e.code() == ErrorCode.INVALID_PATH) {
                throw invalid(index, e.getMessage());
            }
            throw e;
        }
    }

    private static ObjectKind kind(BsonDocument write, int index) {
        BsonValue kind = write.get("kind");
        if (kind == null) {
            return ObjectKind.INNER;
        }
        if (kind.isString()) {
            switch (kind.asString().getValue().toLowerCase(Locale.ROOT)) {
                case "inner":
                    return ObjectKind.INNER;
                case "leaf":
                    return ObjectKind.LEAF;
                default:
                    break;
            }
        }
        throw invalid(index, "\"kind\" must be \"inner\" or \"leaf\"");
    }

    private static BsonDocument document(BsonDocument write, String field, int index) {
        BsonValue value = write.get(field);
        if (value == null || !value.isDocument()) {
            throw invalid(index, "\"" + field + "\" must be an object");
        }
        return value.asDocument();
    }

    private static CatalogException invalid(int index, String problem) {
        return new CatalogException(ErrorCode.INVALID_WRITE_SET, "Invalid write " + index + ": " + problem)
                .with("writeIndex", index);
    }

    /** Canonical Extended JSON keeps every BSON type (an int64 5 stays an int64), so parse(format(w)) = w. */
    private static final JsonWriterSettings CANONICAL =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    /** The JSON form of a write set, as {@link #parse} reads it back exactly. */
    public static String format(WriteSet writes) {
        BsonArray array = new BsonArray();
        for (WriteOp op : writes.ops()) {
            BsonDocument write = new BsonDocument();
            if (op instanceof WriteOp.Add add) {
                write.put("op", new BsonString("add"));
                write.put("path", new BsonString(add.path().toString()));
                write.put("kind", new BsonString(add.kind().name().toLowerCase(Locale.ROOT)));
                write.put("value", add.value());
            } else if (op instanceof WriteOp.Update update) {
                write.put("op", new BsonString("update"));
                write.put("path", new BsonString(update.path().toString()));
                write.put("kind", new BsonString(update.kind().name().toLowerCase(Locale.ROOT)));
                write.put("value", update.value());
            } else if (op instanceof WriteOp.Merge merge) {
                write.put("op", new BsonString("merge"));
                write.put("path", new BsonString(merge.path().toString()));
                write.put("delta", merge.delta());
            } else if (op instanceof WriteOp.Remove remove) {
                write.put("op", new BsonString("remove"));
                write.put("path", new BsonString(remove.path().toString()));
            } else if (op instanceof WriteOp.Clone clone) {
                write.put("op", new BsonString("clone"));
                write.put("source", new BsonString(clone.source().toString()));
                write.put("path", new BsonString(clone.path().toString()));
                write.put("vid", new BsonInt64(clone.sourceVid()));
            }
            array.add(write);
        }
        return new BsonDocument("writes", array).toJson(CANONICAL);
    }
}
