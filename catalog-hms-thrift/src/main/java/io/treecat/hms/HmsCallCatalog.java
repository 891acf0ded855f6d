package io.treecat.hms;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TBase;
import org.apache.thrift.TFieldIdEnum;
import org.apache.thrift.meta_data.FieldMetaData;

/**
 * Which catalog a call acts in, found in its arguments before it runs, so that the dispatcher hands it to
 * the call areas of that catalog ({@link HmsDispatch}); and the answer of a call in a catalog other than
 * {@code hive} relabelled with that catalog's name.
 *
 * <p>Hive clients name a catalog in two ways: a database name {@code @cat#db} in a call's database
 * argument ({@code db_name}, {@code dbname}, …, and the patterns of {@code get_databases} and
 * {@code get_table_meta}), and a {@code catName} or {@code catalogName} field of a request or of a struct
 * inside it (a {@code Table}, the first {@code Partition} of a batch, the statistics' descriptor, …; up to
 * {@value #DEPTH} levels down, the first element of a list). A call naming none acts in {@code hive}; one
 * naming two catalogs is refused ({@code MetaException}): Hive moves nothing between catalogs either. A
 * catalog name this look misses still reaches the areas' own checks ({@link HmsNames#checkCatalog}), which
 * refuse a name that is not the call's catalog: a missed name fails, it never acts in the wrong catalog.
 *
 * <p>The areas answer in Hive's default catalog's name ({@link HmsNames#HIVE_CATALOG}); for a call in
 * another catalog, {@link #relabel} sets the answer's catalog fields to that catalog's name.
 */
final class HmsCallCatalog {
    /** How deep into a request's structs catalog fields are looked for. */
    static final int DEPTH = 3;

    /** Parameters (Thrift field names) that carry a database name, which may be {@code @cat#db}. */
    private static final Set<String> DATABASE_PARAMETERS =
            Set.of("db_name", "dbName", "dbname", "db_patterns", "source_db", "dest_db");
    /** Parameters that carry a catalog's name. */
    private static final Set<String> CATALOG_PARAMETERS = Set.of("catName");
    /**
     * Calls whose area refuses two catalogs itself, with Hive's own message ("You cannot move a partition across
     * catalogs"): they go to the first catalog named, and the area sees both names.
     */
    private static final Set<String> AREA_CHECKS_CATALOGS = Set.of("exchange_partition", "exchange_partitions");
    /** Struct fields that carry a catalog's name. */
    private static final Set<String> CATALOG_FIELDS = Set.of("catName", "catalogName", "cat_name");
    /** Struct fields that carry a database's name, which may be {@code @cat#db}. */
    private static final Set<String> DATABASE_FIELDS = Set.of("dbName", "db_name", "dbname", "databaseName");
    /** Calls whose {@code name} or {@code pattern} parameter is a database name. */
    private static final Map<String, String> NAME_PARAMETERS = Map.of(
            "get_database", "name",
            "drop_database", "name",
            "get_databases", "pattern");

    /** Per call, the indexes of its parameters that may name a catalog, and whether each is a string. */
    private final Map<String, List<Parameter>> parameters;

    private record Parameter(int index, boolean isString, boolean isCatalog) {}

    /** Reads the parameter names of every call of the generated interface once. */
    HmsCallCatalog() {
        Map<String, List<Parameter>> all = new HashMap<>();
        for (Method method : ThriftHiveMetastore.Iface.class.getDeclaredMethods()) {
            all.put(method.getName(), parametersOf(method));
        }
        this.parameters = Map.copyOf(all);
    }

    private static List<Parameter> parametersOf(Method method) {
        Map<? extends TFieldIdEnum, FieldMetaData> fields;
        try {
            Class<?> arguments = Class.forName(ThriftHiveMetastore.class.getName() + "$" + method.getName() + "_args");
            fields = FieldMetaData.getStructMetaDataMap(arguments.asSubclass(TBase.class));
        } catch (ClassNotFoundException e) {
            return List.of();
        }
        List<TFieldIdEnum> ordered = new ArrayList<>(fields.keySet());
        ordered.sort(Comparator.comparingInt(TFieldIdEnum::getThriftFieldId));
        Class<?>[] types = method.getParameterTypes();
        List<Parameter> found = new ArrayList<>();
        for (int i = 0; i < ordered.size() && i < types.length; i++) {
            String name = ordered.get(i).getFieldName();
            if (types[i] == String.class) {
                boolean database =
                        DATABASE_PARAMETERS.contains(name) || name.equals(NAME_PARAMETERS.get(method.getName()));
                if (database || CATALOG_PARAMETERS.contains(name)) {
                    found.add(new Parameter(i, true, !database));
                }
            } else if (TBase.class.isAssignableFrom(types[i]) || List.class.isAssignableFrom(types[i])) {
                found.add(new Parameter(i, false, false));
            }
        }
        return List.copyOf(found);
    }

    /**
     * The TreeCat catalog the call {@code method} acts in with these arguments; null for Hive's default
     * catalog (named or not).
     *
     * @throws MetaException if the arguments name two catalogs
     */
    String of(String method, Object[] arguments, HmsNames names) throws MetaException {
        List<Parameter> candidates = parameters.getOrDefault(method, List.of());
        if (candidates.isEmpty() || arguments == null) {
            return null;
        }
        List<String> named = new ArrayList<>(2);
        for (Parameter parameter : candidates) {
            Object argument = arguments[parameter.index()];
            if (parameter.isString()) {
                String name = (String) argument;
                add(named, parameter.isCatalog() ? name : HmsNames.catalogOf(name));
            } else {
                scan(argument, named, DEPTH);
            }
        }
        String catalog = null;
        boolean areaChecksCatalogs = AREA_CHECKS_CATALOGS.contains(method);
        for (String name : named) {
            String treecat = names.treecatCatalog(name);
            if (treecat == null) {
                continue;
            }
            if (catalog != null && areaChecksCatalogs) {
                break;
            }
            if (catalog != null && !catalog.equals(treecat)) {
                throw new MetaException("A call acts in one catalog; this one names " + names.hmsName(catalog) + " and "
                        + names.hmsName(treecat));
            }
            catalog = treecat;
        }
        return catalog == null || catalog.equals(names.catalog()) ? null : catalog;
    }

    private static void add(List<String> named, String name) {
        if (name != null && !name.isEmpty()) {
            named.add(name);
        }
    }

    /** Catalog names in {@code value}'s catalog fields, and in {@code @cat#db} database fields. */
    private static void scan(Object value, List<String> named, int depth) {
        if (depth == 0 || value == null) {
            return;
        }
        if (value instanceof List<?> list) {
            if (!list.isEmpty()) {
                scan(list.get(0), named, depth);
            }
            return;
        }
        if (!(value instanceof TBase<?, ?> struct)) {
            return;
        }
        for (Map.Entry<? extends TFieldIdEnum, FieldMetaData> field :
                metaData(struct).entrySet()) {
            Object fieldValue = fieldValue(struct, field.getKey());
            if (fieldValue == null) {
                continue;
            }
            String name = field.getValue().fieldName;
            if (fieldValue instanceof String text) {
                if (CATALOG_FIELDS.contains(name)) {
                    add(named, text);
                } else if (DATABASE_FIELDS.contains(name)) {
                    add(named, HmsNames.catalogOf(text));
                }
            } else if (fieldValue instanceof TBase<?, ?> || fieldValue instanceof List<?>) {
                scan(fieldValue, named, depth - 1);
            }
        }
    }

    /**
     * {@code answer} with every catalog field holding {@link HmsNames#HIVE_CATALOG} set to {@code hmsCatalog},
     * in place (the areas build a fresh answer for each call).
     */
    static Object relabel(Object answer, String hmsCatalog) {
        if (answer instanceof Collection<?> values) {
            values.forEach(value -> relabel(value, hmsCatalog));
        } else if (answer instanceof Map<?, ?> map) {
            map.values().forEach(value -> relabel(value, hmsCatalog));
        } else if (answer instanceof TBase<?, ?> struct) {
            relabelStruct(struct, hmsCatalog);
        }
        return answer;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void relabelStruct(TBase struct, String hmsCatalog) {
        for (Map.Entry<? extends TFieldIdEnum, FieldMetaData> field :
                metaData(struct).entrySet()) {
            Object value = fieldValue(struct, field.getKey());
            if (value instanceof String text) {
                if (CATALOG_FIELDS.contains(field.getValue().fieldName) && text.equals(HmsNames.HIVE_CATALOG)) {
                    struct.setFieldValue(field.getKey(), hmsCatalog);
                }
            } else if (value != null) {
                relabel(value, hmsCatalog);
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Map<? extends TFieldIdEnum, FieldMetaData> metaData(TBase struct) {
        return FieldMetaData.getStructMetaDataMap(struct.getClass());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object fieldValue(TBase struct, TFieldIdEnum field) {
        return struct.isSet(field) ? struct.getFieldValue(field) : null;
    }
}
