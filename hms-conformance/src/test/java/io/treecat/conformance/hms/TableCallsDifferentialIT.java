package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.AddCheckConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AddDefaultConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AddForeignKeyRequest;
import org.apache.hadoop.hive.metastore.api.AddNotNullConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AddPrimaryKeyRequest;
import org.apache.hadoop.hive.metastore.api.AddUniqueConstraintRequest;
import org.apache.hadoop.hive.metastore.api.AllTableConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.CheckConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DefaultConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.DropConstraintRequest;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.ForeignKeysRequest;
import org.apache.hadoop.hive.metastore.api.GetFieldsRequest;
import org.apache.hadoop.hive.metastore.api.GetSchemaRequest;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NotNullConstraintsRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest;
import org.apache.hadoop.hive.metastore.api.SQLCheckConstraint;
import org.apache.hadoop.hive.metastore.api.SQLDefaultConstraint;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLNotNullConstraint;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SQLUniqueConstraint;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TruncateTableRequest;
import org.apache.hadoop.hive.metastore.api.UniqueConstraintsRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The table calls of issue 15 against Hive 4.0.1 and TreeCat, the same sequence on both: legacy {@code alter_table}
 * and CASCADE, {@code get_fields}/{@code get_schema}, {@code truncate_table} and the constraint calls. Each
 * comparison's description starts with the Thrift call it checks ({@code "get_schema: plain table"}), which the
 * coverage table in docs/hms-thrift.md counts. Results are compared normalized (column lists, chosen parameters,
 * constraints with generated names masked), exceptions by type. The report is also written to
 * {@code target/hms-differential/table-calls.txt}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "add_check_constraint",
    "add_default_constraint",
    "add_foreign_key",
    "add_not_null_constraint",
    "add_primary_key",
    "add_unique_constraint",
    "alter_table",
    "alter_table_with_cascade",
    "alter_table_with_environment_context",
    "create_table_with_constraints",
    "drop_constraint",
    "drop_table",
    "get_all_table_constraints",
    "get_check_constraints",
    "get_default_constraints",
    "get_fields",
    "get_fields_req",
    "get_fields_with_environment_context",
    "get_foreign_keys",
    "get_not_null_constraints",
    "get_primary_keys",
    "get_schema",
    "get_schema_req",
    "get_schema_with_environment_context",
    "get_unique_constraints",
    "truncate_table",
    "truncate_table_req"
})
class TableCallsDifferentialIT {
    static final String DB = "tcalls";
    private static final String LAZY = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe";

    private static Differential differential;

    /** The run's shared pair of peers ({@link SharedHmsPeers}); the database every test works in. */
    @BeforeAll
    static void createDatabase(HmsPeers shared) {
        differential = shared.differential();
        differential.setUp("create_database " + DB, (client, peer) -> {
            Database database = new Database(DB, "table calls", null, new HashMap<>());
            client.create_database(database);
            return null;
        });
    }

    // ---- fixtures, the same on both sides

    static List<FieldSchema> columns(String... nameTypes) {
        List<FieldSchema> columns = new ArrayList<>();
        for (int i = 0; i < nameTypes.length; i += 2) {
            columns.add(new FieldSchema(nameTypes[i], nameTypes[i + 1], null));
        }
        return columns;
    }

    static Table table(String name, List<FieldSchema> columns, List<FieldSchema> keys, Map<String, String> parameters) {
        Table table = new Table();
        table.setDbName(DB);
        table.setTableName(name);
        table.setOwner("conformance");
        table.setTableType("TRUE".equals(parameters.get("EXTERNAL")) ? "EXTERNAL_TABLE" : "MANAGED_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(new ArrayList<>(columns));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        sd.setSerdeInfo(new SerDeInfo("s", LAZY, new HashMap<>()));
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());
        sd.setParameters(new HashMap<>());
        table.setSd(sd);
        table.setPartitionKeys(new ArrayList<>(keys));
        table.setParameters(new HashMap<>(parameters));
        return table;
    }

    static Partition partition(String table, String ds, Map<String, String> parameters) {
        Partition partition = new Partition();
        partition.setDbName(DB);
        partition.setTableName(table);
        partition.setValues(new ArrayList<>(List.of(ds)));
        StorageDescriptor sd = table(table, columns("id", "bigint", "kind", "string"), List.of(), Map.of())
                .getSd();
        partition.setSd(sd);
        partition.setParameters(new HashMap<>(parameters));
        return partition;
    }

    private static void create(String description, Table table) {
        differential.setUp("create_table " + description, (client, peer) -> {
            client.create_table(table);
            return null;
        });
    }

    // ---- normalizing

    /** Columns as {@code name:type}, in order. */
    static List<String> fields(List<FieldSchema> fields) {
        List<String> names = new ArrayList<>();
        for (FieldSchema field : fields) {
            names.add(field.getName() + ":" + field.getType());
        }
        return names;
    }

    private static final List<String> COMPARED_PARAMETERS =
            List.of("k", "numRows", "rawDataSize", "COLUMN_STATS_ACCURATE");

    /** The parameters both servers keep as given (others, such as Hive's create-time statistics, differ by design). */
    static Map<String, String> parameters(Map<String, String> parameters) {
        Map<String, String> kept = new TreeMap<>();
        for (String key : COMPARED_PARAMETERS) {
            if (parameters != null && parameters.containsKey(key)) {
                kept.put(key, parameters.get(key));
            }
        }
        return kept;
    }

    /** A constraint's generated name ({@code pk_<hash>_<millis>_<n>}) masked: the time in it differs. */
    static String name(String name) {
        return name == null ? null : name.replaceAll("^([a-z]+)_\\d+_\\d+_\\d+$", "$1_<generated>");
    }

    /** Constraints as sorted strings with generated names masked; the order of Hive's answer is its database's. */
    static List<String> constraints(Collection<?> rows) {
        List<String> shown = new ArrayList<>();
        for (Object row : rows) {
            String text = row.toString();
            shown.add(text.replaceAll("([a-z]+)_\\d+_\\d+_\\d+", "$1_<generated>"));
        }
        shown.sort(null);
        return shown;
    }

    private static String table(Table table) {
        return fields(table.getSd().getCols()) + " " + parameters(table.getParameters());
    }

    /** Refusals that were not answered as {@link #refusal} expects, reported with the mismatches. */
    private static final List<String> REFUSALS = new ArrayList<>();

    /**
     * A call both sides refuse, where Hive's server throws an exception the call's IDL does not declare (an
     * {@code InvalidObjectException} from {@code add_primary_key}, a {@code NoSuchObjectException} from
     * {@code truncate_table}): Hive's Thrift processor then answers an internal {@code TApplicationException} that
     * loses Hive's message; TreeCat answers the declared {@code MetaException} with that message (HmsErrors). A
     * decided divergence: checked as such, and the same exception type otherwise.
     */
    private static void refusal(String description, Differential.Call<?> call) {
        Differential.Outcome hive = differential.reference(call, Function.identity());
        Differential.Outcome treeCat = differential.candidate(call, Function.identity());
        boolean hiveInternal =
                org.apache.thrift.TApplicationException.class.getName().equals(hive.exception());
        boolean agreed =
                hiveInternal ? MetaException.class.getName().equals(treeCat.exception()) : hive.agreesWith(treeCat);
        if (!agreed || !hive.threw()) {
            REFUSALS.add(description + "\n    Hive 4.0.1: " + hive.describe() + "\n    TreeCat: " + treeCat.describe()
                    + "\n");
        }
    }

    private void report(String file) throws IOException {
        int comparisons = differential.comparisons();
        List<Differential.Mismatch> mismatches = differential.takeMismatches();
        String report = differential.report(mismatches, comparisons) + String.join("", REFUSALS);
        boolean refused = !REFUSALS.isEmpty();
        REFUSALS.clear();
        assertThat(refused).withFailMessage("%s", report).isFalse();
        Files.writeString(Path.of("target", "hms-differential", file), report, StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(mismatches).withFailMessage("%s", report).isEmpty();
    }

    // ---- get_fields, get_schema

    @Test
    void fieldsAndSchema() throws IOException {
        differential.takeMismatches();
        create("fplain", table("fplain", columns("id", "bigint", "kind", "string"), List.of(), Map.of()));
        create(
                "fparted",
                table("fparted", columns("id", "bigint", "kind", "string"), columns("ds", "string"), Map.of()));
        Table avro = table("favro", columns(), List.of(), Map.of());
        avro.getSd().getSerdeInfo().setSerializationLib("org.apache.hadoop.hive.serde2.avro.AvroSerDe");
        create("favro", avro);
        // An Iceberg table as Iceberg's catalogs register it (TreeCat shows a table made over REST so): no columns.
        Table iceberg = table(
                "fice",
                columns(),
                List.of(),
                Map.of("EXTERNAL", "TRUE", "table_type", "ICEBERG", "metadata_location", "file:/w/m.json"));
        create("fice", iceberg);
        // With Hive's engine enabled Iceberg sets its SerDe and the columns; Hive reads them from the metastore.
        Table engine = table(
                "fengine", columns("id", "bigint"), List.of(), Map.of("EXTERNAL", "TRUE", "table_type", "ICEBERG"));
        engine.getSd().getSerdeInfo().setSerializationLib("org.apache.iceberg.mr.hive.HiveIcebergSerDe");
        create("fengine", engine);

        for (String name : List.of("fplain", "fparted", "favro", "fice", "fengine", "FPLAIN", "fplain.kind", "nope")) {
            differential.compare(
                    "get_fields: " + name,
                    (client, peer) -> client.get_fields(DB, name),
                    TableCallsDifferentialIT::fields);
            differential.compare(
                    "get_schema: " + name,
                    (client, peer) -> client.get_schema(DB, name),
                    TableCallsDifferentialIT::fields);
        }
        differential.compare(
                "get_fields: unknown database",
                (client, peer) -> client.get_fields("nodb", "fplain"),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_schema: unknown database",
                (client, peer) -> client.get_schema("nodb", "fplain"),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_fields: @hive#db",
                (client, peer) -> client.get_fields("@hive#" + DB, "fplain"),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_fields: empty name",
                (client, peer) -> client.get_fields(DB, ""),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_fields: oversized name",
                (client, peer) -> client.get_fields(DB, "x".repeat(5000)),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_fields_with_environment_context: partitioned table",
                (client, peer) -> client.get_fields_with_environment_context(DB, "fparted", new EnvironmentContext()),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_schema_with_environment_context: partitioned table",
                (client, peer) -> client.get_schema_with_environment_context(DB, "fparted", new EnvironmentContext()),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_schema_with_environment_context: unknown table",
                (client, peer) -> client.get_schema_with_environment_context(DB, "nope", new EnvironmentContext()),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_fields_req: partitioned table",
                (client, peer) -> client.get_fields_req(new GetFieldsRequest(DB, "fparted"))
                        .getFields(),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_schema_req: partitioned table",
                (client, peer) -> client.get_schema_req(new GetSchemaRequest(DB, "fparted"))
                        .getFields(),
                TableCallsDifferentialIT::fields);
        differential.compare(
                "get_schema_req: unknown table",
                (client, peer) ->
                        client.get_schema_req(new GetSchemaRequest(DB, "nope")).getFields(),
                TableCallsDifferentialIT::fields);
        report("table-calls-fields.txt");
    }

    // ---- alter_table, alter_table_with_cascade

    @Test
    void legacyAlterAndCascade() throws IOException {
        differential.takeMismatches();
        create("aplain", table("aplain", columns("id", "bigint"), List.of(), Map.of("k", "v")));
        differential.compare(
                "alter_table: parameters and a column",
                (client, peer) -> {
                    Table changed = client.get_table_req(new GetTableRequest(DB, "aplain"))
                            .getTable();
                    changed.getParameters().put("k", "w");
                    changed.getSd().getCols().add(new FieldSchema("note", "string", null));
                    client.alter_table(DB, "aplain", changed);
                    return table(client.get_table_req(new GetTableRequest(DB, "aplain"))
                            .getTable());
                },
                Function.identity());
        differential.compare(
                "alter_table: rename",
                (client, peer) -> {
                    Table moved = client.get_table_req(new GetTableRequest(DB, "aplain"))
                            .getTable();
                    moved.setTableName("arenamed");
                    client.alter_table(DB, "aplain", moved);
                    List<String> names = new ArrayList<>(client.get_all_tables(DB));
                    names.removeIf(name -> !name.startsWith("a"));
                    names.sort(null);
                    return names;
                },
                Function.identity());
        Table missing = table("nope", columns("id", "bigint"), List.of(), Map.of());
        differential.compare(
                "alter_table: unknown table",
                (client, peer) -> {
                    client.alter_table(DB, "nope", missing);
                    return null;
                },
                Function.identity());
        differential.compare(
                "alter_table: partition keys changed",
                (client, peer) -> {
                    Table keyed = client.get_table_req(new GetTableRequest(DB, "arenamed"))
                            .getTable();
                    keyed.setPartitionKeys(columns("ds", "string"));
                    client.alter_table(DB, "arenamed", keyed);
                    return null;
                },
                Function.identity());
        differential.compare(
                "alter_table: a type old values cannot be read as (bigint to int, string to double) is refused",
                (client, peer) -> {
                    client.alter_table(
                            DB, "arenamed", withColumns(client, "arenamed", columns("id", "int", "note", "double")));
                    return null;
                },
                Function.identity());
        differential.compare(
                "alter_table: widening, a number to a string, varchar to string are allowed",
                (client, peer) -> {
                    client.alter_table(
                            DB,
                            "arenamed",
                            withColumns(client, "arenamed", columns("id", "decimal(20,0)", "note", "varchar(10)")));
                    client.alter_table(
                            DB, "arenamed", withColumns(client, "arenamed", columns("id", "string", "note", "string")));
                    return fields(client.get_table_req(new GetTableRequest(DB, "arenamed"))
                            .getTable()
                            .getSd()
                            .getCols());
                },
                Function.identity());
        differential.compare(
                "alter_table: a connection that turns the check off (setMetaConf) changes any type",
                (client, peer) -> {
                    client.setMetaConf("metastore.disallow.incompatible.col.type.changes", "false");
                    try {
                        client.alter_table(
                                DB,
                                "arenamed",
                                withColumns(client, "arenamed", columns("id", "boolean", "note", "array<int>")));
                    } finally {
                        client.setMetaConf("metastore.disallow.incompatible.col.type.changes", "true");
                    }
                    return fields(client.get_table_req(new GetTableRequest(DB, "arenamed"))
                            .getTable()
                            .getSd()
                            .getCols());
                },
                Function.identity());

        create(
                "aparted",
                table("aparted", columns("id", "bigint", "kind", "string"), columns("ds", "string"), Map.of()));
        differential.setUp(
                "add_partitions aparted",
                (client, peer) -> client.add_partitions(new ArrayList<>(
                        List.of(partition("aparted", "a", Map.of()), partition("aparted", "b", Map.of())))));
        Differential.Call<List<String>> partitionColumns = (client, peer) -> {
            List<String> columns = new ArrayList<>();
            for (Partition partition : client.get_partitions(DB, "aparted", (short) -1)) {
                columns.add(
                        partition.getValues() + " " + fields(partition.getSd().getCols()));
            }
            columns.sort(null);
            return columns;
        };
        differential.compare(
                "alter_table_with_cascade: cascade false keeps the partitions' columns",
                (client, peer) -> {
                    client.alter_table_with_cascade(
                            DB,
                            "aparted",
                            withColumns(client, "aparted", columns("id", "bigint", "kind", "string", "x", "int")),
                            false);
                    return partitionColumns.call(client, peer);
                },
                Function.identity());
        differential.compare(
                "alter_table_with_cascade: cascade true gives them the table's",
                (client, peer) -> {
                    client.alter_table_with_cascade(
                            DB,
                            "aparted",
                            withColumns(client, "aparted", columns("id", "string", "kind", "string", "y", "int")),
                            true);
                    return partitionColumns.call(client, peer);
                },
                Function.identity());
        differential.compare(
                "alter_table_with_environment_context: CASCADE in the context",
                (client, peer) -> {
                    client.alter_table_with_environment_context(
                            DB,
                            "aparted",
                            withColumns(
                                    client,
                                    "aparted",
                                    columns("id", "string", "kind", "string", "y", "int", "z", "double")),
                            new EnvironmentContext(new HashMap<>(Map.of("CASCADE", "true"))));
                    return partitionColumns.call(client, peer);
                },
                Function.identity());
        differential.compare(
                "alter_table_with_cascade: unknown table",
                (client, peer) -> {
                    client.alter_table_with_cascade(DB, "nope", missing, true);
                    return null;
                },
                Function.identity());
        report("table-calls-alter.txt");
    }

    /** The table as the server has it (its location included), with {@code columns}. */
    private static Table withColumns(
            org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore.Client client,
            String name,
            List<FieldSchema> columns)
            throws org.apache.thrift.TException {
        Table table = client.get_table_req(new GetTableRequest(DB, name)).getTable();
        table.getSd().setCols(columns);
        return table;
    }

    // ---- truncate_table

    @Test
    void truncate() throws IOException {
        differential.takeMismatches();
        Map<String, String> statistics = Map.of(
                "numRows", "42",
                "rawDataSize", "4200",
                "COLUMN_STATS_ACCURATE", "{\"BASIC_STATS\":\"true\",\"COLUMN_STATS\":{\"id\":\"true\"}}",
                "k", "kept");
        create("tplain", table("tplain", columns("id", "bigint"), List.of(), statistics));
        differential.compare(
                "truncate_table: unpartitioned table",
                (client, peer) -> {
                    client.truncate_table(DB, "tplain", null);
                    return table(client.get_table_req(new GetTableRequest(DB, "tplain"))
                            .getTable());
                },
                Function.identity());

        create(
                "tparted",
                table("tparted", columns("id", "bigint", "kind", "string"), columns("ds", "string"), Map.of()));
        differential.setUp(
                "add_partitions tparted",
                (client, peer) -> client.add_partitions(new ArrayList<>(List.of(
                        partition("tparted", "a", statistics),
                        partition("tparted", "b", statistics),
                        partition("tparted", "c", statistics)))));
        Differential.Call<List<String>> partitionParameters = (client, peer) -> {
            List<String> shown = new ArrayList<>();
            for (Partition partition : client.get_partitions(DB, "tparted", (short) -1)) {
                shown.add(partition.getValues() + " " + parameters(partition.getParameters()));
            }
            shown.sort(null);
            return shown;
        };
        differential.compare(
                "truncate_table_req: named partitions",
                (client, peer) -> {
                    TruncateTableRequest request = new TruncateTableRequest(DB, "tparted");
                    request.setPartNames(new ArrayList<>(List.of("ds=a", "ds=zz")));
                    client.truncate_table_req(request);
                    return partitionParameters.call(client, peer);
                },
                Function.identity());
        differential.compare(
                "truncate_table: every partition",
                (client, peer) -> {
                    client.truncate_table(DB, "tparted", null);
                    return partitionParameters.call(client, peer);
                },
                Function.identity());
        refusal("truncate_table: unknown table", (client, peer) -> {
            client.truncate_table(DB, "nope", null);
            return null;
        });
        refusal("truncate_table_req: unknown table", (client, peer) -> {
            client.truncate_table_req(new TruncateTableRequest(DB, "nope"));
            return null;
        });
        refusal("truncate_table: unknown database", (client, peer) -> {
            client.truncate_table("nodb", "tplain", null);
            return null;
        });

        // External tables: Hive 4.0.1's metastore deletes their files (HiveServer2 refuses before it asks); TreeCat
        // refuses with HiveServer2's words (docs/hms-thrift.md). Checked as that decided divergence.
        create("text", table("text", columns("id", "bigint"), List.of(), Map.of("EXTERNAL", "TRUE")));
        Differential.Call<Object> external = (client, peer) -> {
            client.truncate_table(DB, "text", null);
            return "truncated";
        };
        Differential.Outcome hive = differential.reference(external, Function.identity());
        Differential.Outcome treeCat = differential.candidate(external, Function.identity());
        List<String> divergences = new ArrayList<>();
        if (hive.threw()) {
            divergences.add("Hive 4.0.1 no longer truncates an external table: " + hive.describe());
        }
        if (!MetaException.class.getName().equals(treeCat.exception())) {
            divergences.add("TreeCat truncated an external table: " + treeCat.describe());
        }
        assertThat(divergences).isEmpty();
        report("table-calls-truncate.txt");
    }

    // ---- constraints

    private static SQLPrimaryKey pk(String table, String column, int seq, String name) {
        return new SQLPrimaryKey(DB, table, column, seq, name, false, false, true);
    }

    private static SQLForeignKey fk(
            String parent, String parentColumn, String child, String column, int seq, String name) {
        return new SQLForeignKey(
                DB, parent, parentColumn, DB, child, column, seq, 1, 2, name, null, false, false, true);
    }

    private static <T> Differential.Call<List<String>> constraintsOf(Differential.Call<List<T>> call) {
        return (client, peer) -> constraints(call.call(client, peer));
    }

    private static void compareAll(String table) {
        differential.compare(
                "get_primary_keys: " + table,
                constraintsOf((client, peer) -> client.get_primary_keys(new PrimaryKeysRequest(DB, table))
                        .getPrimaryKeys()),
                Function.identity());
        differential.compare(
                "get_foreign_keys: child " + table,
                constraintsOf((client, peer) -> client.get_foreign_keys(new ForeignKeysRequest(null, null, DB, table))
                        .getForeignKeys()),
                Function.identity());
        differential.compare(
                "get_foreign_keys: parent " + table,
                constraintsOf((client, peer) -> client.get_foreign_keys(new ForeignKeysRequest(DB, table, null, null))
                        .getForeignKeys()),
                Function.identity());
        differential.compare(
                "get_unique_constraints: " + table,
                constraintsOf(
                        (client, peer) -> client.get_unique_constraints(new UniqueConstraintsRequest("hive", DB, table))
                                .getUniqueConstraints()),
                Function.identity());
        differential.compare(
                "get_not_null_constraints: " + table,
                constraintsOf((client, peer) -> client.get_not_null_constraints(
                                new NotNullConstraintsRequest("hive", DB, table))
                        .getNotNullConstraints()),
                Function.identity());
        differential.compare(
                "get_default_constraints: " + table,
                constraintsOf((client, peer) -> client.get_default_constraints(
                                new DefaultConstraintsRequest("hive", DB, table))
                        .getDefaultConstraints()),
                Function.identity());
        differential.compare(
                "get_check_constraints: " + table,
                constraintsOf(
                        (client, peer) -> client.get_check_constraints(new CheckConstraintsRequest("hive", DB, table))
                                .getCheckConstraints()),
                Function.identity());
        differential.compare(
                "get_all_table_constraints: " + table,
                (client, peer) -> constraints(
                        List.of(client.get_all_table_constraints(new AllTableConstraintsRequest(DB, table, "hive"))
                                .getAllTableConstraints())),
                Function.identity());
    }

    private static Differential.Comparison change(String description, Differential.Call<Object> call) {
        return differential.compare(description, call, Function.identity());
    }

    @Test
    void constraints() throws IOException {
        differential.takeMismatches();
        create("cplain", table("cplain", columns("id", "bigint"), List.of(), Map.of()));
        compareAll("cplain");
        compareAll("nope");

        differential.compare(
                "create_table_with_constraints: primary and not-null keys",
                (client, peer) -> {
                    client.create_table_with_constraints(
                            table(
                                    "customers",
                                    columns("id", "bigint", "region", "string", "name", "string"),
                                    List.of(),
                                    Map.of()),
                            new ArrayList<>(List.of(
                                    pk("customers", "ID", 1, "pk_customers"),
                                    pk("customers", "region", 2, "pk_customers"))),
                            new ArrayList<>(),
                            new ArrayList<>(),
                            new ArrayList<>(List.of(new SQLNotNullConstraint(
                                    "hive", DB, "customers", "name", "nn_name", false, false, true))),
                            new ArrayList<>(),
                            new ArrayList<>());
                    return null;
                },
                Function.identity());
        differential.compare(
                "create_table_with_constraints: foreign, default and check keys",
                (client, peer) -> {
                    client.create_table_with_constraints(
                            table(
                                    "orders",
                                    columns(
                                            "id",
                                            "bigint",
                                            "customer",
                                            "bigint",
                                            "region",
                                            "string",
                                            "amount",
                                            "double"),
                                    List.of(),
                                    Map.of()),
                            new ArrayList<>(List.of(pk("orders", "id", 1, null))),
                            new ArrayList<>(List.of(
                                    fk("customers", "id", "orders", "customer", 1, "fk_customer"),
                                    fk("customers", "region", "orders", "region", 2, "fk_customer"))),
                            new ArrayList<>(),
                            new ArrayList<>(),
                            new ArrayList<>(List.of(new SQLDefaultConstraint(
                                    "hive", DB, "orders", "amount", "0.0", "dc_amount", false, false, true))),
                            new ArrayList<>(List.of(new SQLCheckConstraint(
                                    "hive", DB, "orders", "amount", "amount >= 0", "ck_amount", false, false, true))));
                    return null;
                },
                Function.identity());
        differential.compare(
                "create_table_with_constraints: unknown column",
                (client, peer) -> {
                    client.create_table_with_constraints(
                            table("bad", columns("id", "bigint"), List.of(), Map.of()),
                            new ArrayList<>(List.of(pk("bad", "nope", 1, "pk_bad"))),
                            new ArrayList<>(),
                            new ArrayList<>(),
                            new ArrayList<>(),
                            new ArrayList<>(),
                            new ArrayList<>());
                    return null;
                },
                Function.identity());
        differential.compare(
                "create_table_with_constraints: a refused one leaves no table",
                (client, peer) -> client.get_all_tables(DB).contains("bad"),
                Function.identity());
        compareAll("customers");
        compareAll("orders");

        create(
                "items",
                table("items", columns("id", "bigint", "sku", "string", "price", "double"), List.of(), Map.of()));
        change("add_primary_key: a new key", (client, peer) -> {
            client.add_primary_key(
                    new AddPrimaryKeyRequest(new ArrayList<>(List.of(pk("items", "id", 1, "pk_items")))));
            return null;
        });
        refusal("add_primary_key: a second key", (client, peer) -> {
            client.add_primary_key(
                    new AddPrimaryKeyRequest(new ArrayList<>(List.of(pk("items", "sku", 1, "pk_other")))));
            return null;
        });
        refusal("add_primary_key: unknown table", (client, peer) -> {
            client.add_primary_key(
                    new AddPrimaryKeyRequest(new ArrayList<>(List.of(pk("ghost", "id", 1, "pk_ghost")))));
            return null;
        });
        change("add_primary_key: no columns", (client, peer) -> {
            client.add_primary_key(new AddPrimaryKeyRequest(new ArrayList<>()));
            return null;
        });
        change("add_unique_constraint: a new key", (client, peer) -> {
            client.add_unique_constraint(new AddUniqueConstraintRequest(new ArrayList<>(
                    List.of(new SQLUniqueConstraint("hive", DB, "items", "sku", 1, "uk_sku", false, false, true)))));
            return null;
        });
        refusal("add_unique_constraint: a name taken", (client, peer) -> {
            client.add_unique_constraint(new AddUniqueConstraintRequest(new ArrayList<>(List.of(
                    new SQLUniqueConstraint("hive", DB, "items", "price", 1, "PK_ITEMS", false, false, true)))));
            return null;
        });
        refusal("add_unique_constraint: unknown column", (client, peer) -> {
            client.add_unique_constraint(new AddUniqueConstraintRequest(new ArrayList<>(
                    List.of(new SQLUniqueConstraint("hive", DB, "items", "nope", 1, "uk_nope", false, false, true)))));
            return null;
        });
        change("add_not_null_constraint: without a name", (client, peer) -> {
            client.add_not_null_constraint(new AddNotNullConstraintRequest(new ArrayList<>(
                    List.of(new SQLNotNullConstraint("hive", DB, "items", "sku", null, false, false, true)))));
            return null;
        });
        refusal("add_not_null_constraint: unknown column", (client, peer) -> {
            client.add_not_null_constraint(new AddNotNullConstraintRequest(new ArrayList<>(
                    List.of(new SQLNotNullConstraint("hive", DB, "items", "nope", "nn_nope", false, false, true)))));
            return null;
        });
        change("add_default_constraint: a new one", (client, peer) -> {
            client.add_default_constraint(new AddDefaultConstraintRequest(new ArrayList<>(List.of(
                    new SQLDefaultConstraint("hive", DB, "items", "price", "1.0", "dc_price", false, false, true)))));
            return null;
        });
        change("add_check_constraint: on the table", (client, peer) -> {
            client.add_check_constraint(new AddCheckConstraintRequest(new ArrayList<>(List.of(
                    new SQLCheckConstraint("hive", DB, "items", null, "price > 0", "ck_price", false, false, true)))));
            return null;
        });
        refusal("add_check_constraint: unknown table", (client, peer) -> {
            client.add_check_constraint(new AddCheckConstraintRequest(new ArrayList<>(List.of(new SQLCheckConstraint(
                    "hive", DB, "ghost", "price", "price > 0", "ck_ghost", false, false, true)))));
            return null;
        });
        compareAll("items");

        create(
                "returns",
                table(
                        "returns",
                        columns("id", "bigint", "customer", "string", "region", "string"),
                        List.of(),
                        Map.of()));
        refusal("add_foreign_key: unknown parent", (client, peer) -> {
            client.add_foreign_key(new AddForeignKeyRequest(
                    new ArrayList<>(List.of(fk("ghost", "id", "returns", "id", 1, "fk_ghost")))));
            return null;
        });
        refusal("add_foreign_key: unknown child column", (client, peer) -> {
            client.add_foreign_key(new AddForeignKeyRequest(
                    new ArrayList<>(List.of(fk("customers", "id", "returns", "nope", 1, "fk_x")))));
            return null;
        });
        refusal("add_foreign_key: part of a key", (client, peer) -> {
            client.add_foreign_key(new AddForeignKeyRequest(
                    new ArrayList<>(List.of(fk("customers", "id", "returns", "id", 1, "fk_x")))));
            return null;
        });
        refusal("add_foreign_key: other types", (client, peer) -> {
            client.add_foreign_key(new AddForeignKeyRequest(new ArrayList<>(List.of(
                    fk("customers", "id", "returns", "customer", 1, "fk_x"),
                    fk("customers", "region", "returns", "region", 2, "fk_x")))));
            return null;
        });
        refusal("add_foreign_key: a parent without keys", (client, peer) -> {
            client.add_foreign_key(
                    new AddForeignKeyRequest(new ArrayList<>(List.of(fk("cplain", "id", "returns", "id", 1, "fk_x")))));
            return null;
        });
        refusal("add_foreign_key: a name the parent has", (client, peer) -> {
            client.add_foreign_key(new AddForeignKeyRequest(
                    new ArrayList<>(List.of(fk("items", "id", "returns", "id", 1, "uk_sku")))));
            return null;
        });
        change("add_foreign_key: to a primary key", (client, peer) -> {
            client.add_foreign_key(new AddForeignKeyRequest(
                    new ArrayList<>(List.of(fk("items", "id", "returns", "id", 1, "fk_item")))));
            return null;
        });
        compareAll("returns");
        compareAll("items");

        change("drop_constraint: a unique key", (client, peer) -> {
            client.drop_constraint(new DropConstraintRequest(DB, "items", "UK_SKU"));
            return constraints(client.get_unique_constraints(new UniqueConstraintsRequest("hive", DB, "items"))
                    .getUniqueConstraints());
        });
        refusal("drop_constraint: again", (client, peer) -> {
            client.drop_constraint(new DropConstraintRequest(DB, "items", "uk_sku"));
            return null;
        });
        refusal("drop_constraint: unknown table", (client, peer) -> {
            client.drop_constraint(new DropConstraintRequest(DB, "ghost", "x"));
            return null;
        });
        change("drop_constraint: a foreign key from its parent", (client, peer) -> {
            client.drop_constraint(new DropConstraintRequest(DB, "items", "fk_item"));
            return constraints(client.get_foreign_keys(new ForeignKeysRequest(null, null, DB, "returns"))
                    .getForeignKeys());
        });
        change("drop_constraint: the parent's primary key hides its foreign keys", (client, peer) -> {
            client.drop_constraint(new DropConstraintRequest(DB, "customers", "pk_customers"));
            return constraints(client.get_foreign_keys(new ForeignKeysRequest(null, null, DB, "orders"))
                    .getForeignKeys());
        });
        change("add_primary_key: again on the referenced columns", (client, peer) -> {
            client.add_primary_key(new AddPrimaryKeyRequest(new ArrayList<>(
                    List.of(pk("customers", "id", 1, "pk_again"), pk("customers", "region", 2, "pk_again")))));
            return constraints(client.get_foreign_keys(new ForeignKeysRequest(null, null, DB, "orders"))
                    .getForeignKeys());
        });

        // Renames and drops: the keys follow the parent's new name; a dropped parent ends them.
        change("alter_table: renaming a parent renames its keys", (client, peer) -> {
            Table customers =
                    client.get_table_req(new GetTableRequest(DB, "customers")).getTable();
            customers.setTableName("clients");
            client.alter_table(DB, "customers", customers);
            return constraints(client.get_foreign_keys(new ForeignKeysRequest(null, null, DB, "orders"))
                    .getForeignKeys());
        });
        compareAll("clients");
        change("drop_table: a dropped parent ends its foreign keys", (client, peer) -> {
            client.drop_table(DB, "clients", true);
            return constraints(client.get_foreign_keys(new ForeignKeysRequest(null, null, DB, "orders"))
                    .getForeignKeys());
        });
        compareAll("orders");
        report("table-calls-constraints.txt");
    }
}
