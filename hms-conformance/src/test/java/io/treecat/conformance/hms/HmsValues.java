package io.treecat.conformance.hms;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.thrift.TBase;
import org.apache.thrift.TEnum;
import org.apache.thrift.TFieldIdEnum;
import org.apache.thrift.meta_data.FieldMetaData;

/**
 * What a differential test compares of an answer: any Thrift value turned into plain maps, lists and strings, with
 * only what legitimately differs between two metastores made equal. Everything else is compared as it is, set fields
 * and unset fields apart, except the fields {@link KnownHiveDivergences#openField} and
 * {@link KnownHiveDivergences#openParameter} name (Hive fills them in, TreeCat does not yet).
 *
 * <ul>
 *   <li>Ids of Hive's backing database: {@code Table.id} is left out.
 *   <li>Times the server takes from its clock: a non-zero {@code createTime} and the parameter
 *       {@code transient_lastDdlTime} become {@code <time>}.
 *   <li>Locations the server chose: a location under either peer's warehouse becomes {@code <warehouse>/...}, with a
 *       database's directory {@code <db>.db} (Hive's) written {@code <db>} (TreeCat's, as an Iceberg REST namespace's).
 *       Locations a test gives both sides are compared as they are.
 * </ul>
 *
 * A struct becomes a map of its set fields in field-id order; a set, a list of its values in their text's order; a map,
 * a sorted map.
 */
final class HmsValues {
    static final String TIME = "<time>";
    static final String WAREHOUSE = "<warehouse>";

    /**
     * Fields a server sets from its clock: create times, and {@code lastAnalyzed}, which Hive stamps when it stores
     * column statistics whatever the client sent (TreeCat keeps the client's, which says when the client analyzed).
     */
    private static final Set<String> SERVER_TIMES = Set.of("createTime", "lastAnalyzed");

    private final List<String> roots;

    /** {@code warehouses}: the directories where the peers put what has no location of its own. */
    HmsValues(List<Path> warehouses) {
        List<String> forms = new ArrayList<>();
        for (Path warehouse : warehouses) {
            String path = warehouse.toAbsolutePath().normalize().toString();
            forms.add("file://" + path);
            forms.add("file:" + path);
            forms.add(path);
        }
        // Longest first, so that file:/// is tried before file:/ and a root before its parent.
        forms.sort(Comparator.comparingInt(String::length).reversed());
        this.roots = List.copyOf(forms);
    }

    /** Names sorted: for the listings whose order Hive leaves to its store (the order tables were created in, say). */
    static List<String> sorted(List<String> names) {
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(null);
        return sorted;
    }

    /** The comparable form of any answer (a struct, a list of them, a string, a number, ...). */
    Object of(Object value) {
        return of(null, value);
    }

    private Object of(String field, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof TBase<?, ?> struct) {
            return struct(struct);
        }
        if (value instanceof TEnum constant) {
            return constant.toString();
        }
        if (value instanceof String text) {
            return location(text);
        }
        if (value instanceof ByteBuffer buffer) {
            ByteBuffer copy = buffer.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return HexFormat.of().formatHex(bytes);
        }
        if (value instanceof byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
        if (field != null
                && SERVER_TIMES.contains(field)
                && value instanceof Number number
                && number.longValue() != 0) {
            return TIME;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            list.forEach(element -> out.add(of(element)));
            return out;
        }
        if (value instanceof Set<?> set) {
            List<Object> out = new ArrayList<>();
            set.forEach(element -> out.add(of(element)));
            out.sort(Comparator.comparing(String::valueOf));
            return out;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new TreeMap<>();
            map.forEach((key, entry) -> {
                if (!("parameters".equals(field) && KnownHiveDivergences.openParameter(String.valueOf(key), entry))) {
                    out.put(String.valueOf(of(key)), of(entry));
                }
            });
            return out;
        }
        return value;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Map<String, Object> struct(TBase struct) {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<? extends TFieldIdEnum, FieldMetaData> fields = FieldMetaData.getStructMetaDataMap(struct.getClass());
        String type = struct.getClass().getSimpleName();
        for (TFieldIdEnum field : fields.keySet()) {
            if (struct.isSet(field)
                    && !(type.equals("Table") && field.getFieldName().equals("id"))) {
                Object value = of(field.getFieldName(), struct.getFieldValue(field));
                if (!KnownHiveDivergences.openField(type, field.getFieldName(), value)) {
                    out.put(field.getFieldName(), value);
                }
            }
        }
        return out;
    }

    /** {@code text} with a leading warehouse root written {@code <warehouse>}, and a database directory without {@code .db}. */
    String location(String text) {
        requireNonNull(text, "text is null");
        for (String root : roots) {
            if (text.equals(root) || text.startsWith(root + "/")) {
                String rest = text.substring(root.length());
                return WAREHOUSE + rest.replaceFirst("^/([^/]+)\\.db(?=/|$)", "/$1");
            }
        }
        return text;
    }
}
