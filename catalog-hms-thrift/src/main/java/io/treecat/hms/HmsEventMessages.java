package io.treecat.hms;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TJSONProtocol;

/**
 * The messages of Hive's notification events in Hive's {@code json-0.2} format ({@code JSONMessageEncoder}): the
 * fields of Hive's {@code JSON*Message} classes, in their order, with the Thrift objects embedded as
 * {@code TJSONProtocol} text as Hive's {@code MessageBuilder} writes them, so Hive's own {@code
 * JSONMessageDeserializer} reads them back (TestHmsNotifications does).
 *
 * <p>Written here rather than with Hive's classes: those live in {@code hive-standalone-metastore-server}, whose
 * {@code MessageBuilder} builds a Hadoop {@code Configuration} when it loads, and the server ships no Hadoop.
 *
 * <p>{@code server} and {@code servicePrincipal} are empty (Hive writes its {@code metastore.thrift.uris} and
 * Kerberos principal there; no reader of these messages acts on them). Files are never listed ({@code files},
 * {@code partitionFiles} are empty): the metastore does not know them either unless a client tells it.
 */
final class HmsEventMessages {
    /** The {@code messageFormat} of every event: Hive's {@code JSONMessageEncoder.FORMAT}. */
    static final String FORMAT = "json-0.2";

    private static final JsonFactory JSON = new JsonFactory();

    private HmsEventMessages() {}

    static String createDatabase(Database database, long timestamp) throws MetaException {
        Map<String, Object> fields = header();
        fields.put("db", database.getName());
        fields.put("dbJson", thriftJson(database));
        fields.put("timestamp", timestamp);
        return write(fields);
    }

    static String alterDatabase(Database before, Database after, long timestamp) throws MetaException {
        Map<String, Object> fields = header();
        fields.put("db", before.getName());
        fields.put("dbObjBeforeJson", thriftJson(before));
        fields.put("dbObjAfterJson", thriftJson(after));
        fields.put("timestamp", timestamp);
        return write(fields);
    }

    static String dropDatabase(Database database, long timestamp) throws MetaException {
        return createDatabase(database, timestamp);
    }

    static String createTable(Table table, long timestamp) throws MetaException {
        Map<String, Object> fields = tableHeader(table);
        fields.put("tableObjJson", thriftJson(table));
        fields.put("timestamp", timestamp);
        fields.put("files", List.of());
        return write(fields);
    }

    static String dropTable(Table table, long timestamp) throws MetaException {
        Map<String, Object> fields = tableHeader(table);
        fields.put("tableObjJson", thriftJson(table));
        fields.put("timestamp", timestamp);
        return write(fields);
    }

    /** A table changed, or renamed ({@code before} names it as it was, as Hive's message does). */
    static String alterTable(Table before, Table after, long timestamp) throws MetaException {
        Map<String, Object> fields = tableHeader(before);
        fields.put("tableObjBeforeJson", thriftJson(before));
        fields.put("tableObjAfterJson", thriftJson(after));
        fields.put("isTruncateOp", "false");
        fields.put("timestamp", timestamp);
        return write(fields);
    }

    static String addPartitions(Table table, List<Partition> partitions, long timestamp) throws MetaException {
        Map<String, Object> fields = tableHeader(table);
        fields.put("tableObjJson", thriftJson(table));
        fields.put("timestamp", timestamp);
        List<Map<String, String>> values = new ArrayList<>();
        List<String> objects = new ArrayList<>();
        for (Partition partition : partitions) {
            values.add(keyValues(table, partition));
            objects.add(thriftJson(partition));
        }
        fields.put("partitions", values);
        fields.put("partitionListJson", objects);
        fields.put("partitionFiles", List.of());
        return write(fields);
    }

    static String alterPartition(Table table, Partition before, Partition after, long timestamp) throws MetaException {
        Map<String, Object> fields = tableHeader(table);
        fields.put("tableObjJson", thriftJson(table));
        fields.put("isTruncateOp", "false");
        fields.put("timestamp", timestamp);
        fields.put("keyValues", keyValues(table, before));
        fields.put("partitionObjBeforeJson", thriftJson(before));
        fields.put("partitionObjAfterJson", thriftJson(after));
        return write(fields);
    }

    static String dropPartitions(Table table, List<Partition> partitions, long timestamp) throws MetaException {
        Map<String, Object> fields = tableHeader(table);
        fields.put("tableObjJson", thriftJson(table));
        fields.put("timestamp", timestamp);
        fields.put(
                "partitions",
                partitions.stream()
                        .map(partition -> keyValues(table, partition))
                        .toList());
        return write(fields);
    }

    /** Partition key → value, in key order: Hive's {@code MessageBuilder.getPartitionKeyValues}. */
    static Map<String, String> keyValues(Table table, Partition partition) {
        Map<String, String> values = new LinkedHashMap<>();
        List<FieldSchema> keys = table.getPartitionKeys() == null ? List.of() : table.getPartitionKeys();
        for (int i = 0; i < keys.size() && partition.getValues() != null && i < partition.getValuesSize(); i++) {
            values.put(keys.get(i).getName(), partition.getValues().get(i));
        }
        return values;
    }

    private static Map<String, Object> header() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("server", "");
        fields.put("servicePrincipal", "");
        return fields;
    }

    private static Map<String, Object> tableHeader(Table table) {
        Map<String, Object> fields = header();
        fields.put("db", table.getDbName());
        fields.put("table", table.getTableName());
        fields.put("tableType", table.getTableType());
        return fields;
    }

    /** A Thrift object as {@code TJSONProtocol} text, as Hive's {@code MessageBuilder.create*ObjJson} writes it. */
    static String thriftJson(TBase<?, ?> struct) throws MetaException {
        try {
            return new String(new TSerializer(new TJSONProtocol.Factory()).serialize(struct), StandardCharsets.UTF_8);
        } catch (TException e) {
            throw new MetaException("Cannot write a notification message: " + e.getMessage());
        }
    }

    private static String write(Map<String, Object> fields) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            writeValue(json, fields);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void writeValue(JsonGenerator json, Object value) throws IOException {
        if (value == null) {
            json.writeNull();
        } else if (value instanceof String text) {
            json.writeString(text);
        } else if (value instanceof Long number) {
            json.writeNumber(number);
        } else if (value instanceof Map<?, ?> map) {
            json.writeStartObject();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                json.writeFieldName(String.valueOf(entry.getKey()));
                writeValue(json, entry.getValue());
            }
            json.writeEndObject();
        } else if (value instanceof List<?> list) {
            json.writeStartArray();
            for (Object element : list) {
                writeValue(json, element);
            }
            json.writeEndArray();
        } else {
            throw new IllegalArgumentException(
                    "No JSON form for " + value.getClass().getSimpleName());
        }
    }
}
