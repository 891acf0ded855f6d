package io.treecat.hms;

import io.treecat.lakehouse.catalog.Partitions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.MetaException;

/**
 * Hive's partition names, {@code k1=v1/k2=v2}: keys lower-cased, keys and values escaped as Hive's
 * {@code org.apache.hadoop.hive.metastore.utils.FileUtils.escapePathName} does, an empty or null value
 * {@code __HIVE_DEFAULT_PARTITION__}. Hive's own class cannot be used here: its static initializer
 * loads Hadoop's file system classes, which the server does not ship.
 *
 * <p>Each component {@code k=v} is also the id of one partition level on the tree, so a partition's
 * name is its path below the table: the escaping is the lake's ({@link Partitions#escape},
 * {@link Partitions#levelId}); the parsing of the names Hive clients send is here.
 */
final class HivePartitionNames {
    static final String DEFAULT_PARTITION = Partitions.DEFAULT_VALUE;

    private HivePartitionNames() {}

    /** Hive's {@code escapePathName}, which the tree's partition level ids use ({@link Partitions#escape}). */
    static String escape(String text) {
        return Partitions.escape(text);
    }

    /** Hive's unescape: {@code %XX} with two hex digits is that character; any other {@code %} stays. */
    static String unescape(String text) {
        StringBuilder plain = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length() && hex(text.charAt(i + 1)) >= 0 && hex(text.charAt(i + 2)) >= 0) {
                plain.append((char) (hex(text.charAt(i + 1)) * 16 + hex(text.charAt(i + 2))));
                i += 2;
            } else {
                plain.append(c);
            }
        }
        return plain.toString();
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

    /** One level's id: {@code esc(lower(key))=esc(value)}. */
    static String component(String key, String value) {
        return Partitions.levelId(key, value);
    }

    /** The name of the partition with these values of these keys. */
    static String name(List<String> keys, List<String> values) throws MetaException {
        if (keys.size() != values.size()) {
            throw new MetaException(
                    "Invalid number of partition values: " + values.size() + " for " + keys.size() + " partition keys");
        }
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                name.append('/');
            }
            name.append(component(keys.get(i), values.get(i)));
        }
        return name.toString();
    }

    /** The spec ({@code key → value}, unescaped, in order) of a name; Hive's {@code makeSpecFromName}. */
    static LinkedHashMap<String, String> spec(String name) throws MetaException {
        if (name == null || name.isEmpty()) {
            throw new MetaException("Invalid partition name: '" + name + "'");
        }
        LinkedHashMap<String, String> spec = new LinkedHashMap<>();
        for (String component : name.split("/", -1)) {
            int equals = component.indexOf('=');
            if (equals <= 0) {
                throw new MetaException("Invalid partition name: '" + name + "': '" + component + "' is not key=value");
            }
            spec.put(unescape(component.substring(0, equals)), unescape(component.substring(equals + 1)));
        }
        return spec;
    }

    /**
     * The spec of a name as Hive's {@code partition_name_to_vals} and {@code partition_name_to_spec} read it: each
     * component {@code k=v} (both non-empty; the key up to the last {@code =}) unescaped, any other component left
     * out, so a malformed name reads as fewer keys or none, never as an error. Only a null name is refused.
     */
    static LinkedHashMap<String, String> specIgnoringMalformed(String name) throws MetaException {
        if (name == null) {
            throw new MetaException("Invalid partition name: 'null'");
        }
        LinkedHashMap<String, String> spec = new LinkedHashMap<>();
        for (String component : name.split("/", -1)) {
            int equals = component.lastIndexOf('=');
            if (equals > 0 && equals < component.length() - 1) {
                spec.put(unescape(component.substring(0, equals)), unescape(component.substring(equals + 1)));
            }
        }
        return spec;
    }

    /** The values of a name for the table's keys, in key order; a name with other keys is refused. */
    static List<String> values(List<String> keys, String name) throws MetaException {
        Map<String, String> spec = spec(name);
        List<String> values = new ArrayList<>(keys.size());
        for (String key : keys) {
            String value = spec.get(key.toLowerCase(Locale.ROOT));
            if (value == null) {
                throw new MetaException("Invalid partition name '" + name + "': no value for partition key " + key);
            }
            values.add(value);
        }
        if (spec.size() != keys.size()) {
            throw new MetaException("Invalid partition name '" + name + "': the table's partition keys are " + keys);
        }
        return values;
    }
}
