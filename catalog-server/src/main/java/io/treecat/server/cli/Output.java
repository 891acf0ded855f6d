package io.treecat.server.cli;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.service.WriteSetJson;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonString;

/** How a command prints: one JSON object a line, or an aligned table for people. */
final class Output {
    private static final int VALUE_WIDTH = 100;

    private final PrintStream out;
    private final boolean table;
    private boolean headerPrinted;

    Output(PrintStream out, boolean table) {
        this.out = out;
        this.table = table;
    }

    void object(CatalogObject object) {
        if (table) {
            if (!headerPrinted) {
                out.printf("%-5s  %-8s  %-50s  %s%n", "KIND", "VERSION", "PATH", "VALUE");
                headerPrinted = true;
            }
            String value = object.value().toJson(WriteSetJson.RELAXED);
            out.printf(
                    "%-5s  %-8d  %-50s  %s%n",
                    kind(object.kind()),
                    object.version(),
                    object.path(),
                    value.length() > VALUE_WIDTH ? value.substring(0, VALUE_WIDTH - 3) + "..." : value);
            return;
        }
        BsonDocument line = new BsonDocument(
                        "path", new BsonString(object.path().toString()))
                .append("kind", new BsonString(kind(object.kind())))
                .append("version", new BsonInt64(object.version()))
                .append("value", object.value());
        out.println(line.toJson(WriteSetJson.RELAXED));
    }

    /** A record of named fields: a JSON object, or {@code name: value} lines. */
    void record(Map<String, Object> fields) {
        if (table) {
            fields.forEach((name, value) -> out.printf("%-12s %s%n", name + ":", value));
            return;
        }
        BsonDocument line = new BsonDocument();
        fields.forEach((name, value) -> line.append(
                name,
                value instanceof Number number && !(value instanceof Double)
                        ? new BsonInt64(number.longValue())
                        : value instanceof Double d ? new BsonDouble(d) : new BsonString(String.valueOf(value))));
        out.println(line.toJson(WriteSetJson.RELAXED));
    }

    /** Whether this prints for people (a table) rather than JSON lines. */
    boolean isTable() {
        return table;
    }

    /** One line of text, as a table command formats it itself. */
    void line(String text) {
        out.println(text);
    }

    /** One JSON line, for a record with nested fields. */
    void json(BsonDocument document) {
        out.println(document.toJson(WriteSetJson.RELAXED));
    }

    static Map<String, Object> fields(Object... namesAndValues) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            fields.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return fields;
    }

    static String kind(ObjectKind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    void flush() {
        out.flush();
    }
}
