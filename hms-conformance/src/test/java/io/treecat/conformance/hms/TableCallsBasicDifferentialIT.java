package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.Differential.done;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AlterTableRequest;
import org.apache.hadoop.hive.metastore.api.CreateTableRequest;
import org.apache.hadoop.hive.metastore.api.DropTableRequest;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTablesRequest;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableMeta;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The table calls against Hive 4.0.1 and TreeCat: create (three forms), get, the listings (patterns, types, table
 * meta, objects by name, Hive's filter over owner, name and parameters), alter (the struct, a rename, the expected
 * parameter swap), drop (four forms), with the missing databases and tables and bad names each refuses. Lists of names
 * are compared sorted: Hive answers them in its store's order (the order the tables were made in). Databases are
 * {@code difftbl_*}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "create_table",
    "create_table_with_environment_context",
    "create_table_req",
    "get_table_req",
    "get_all_tables",
    "get_tables",
    "get_tables_by_type",
    "get_table_meta",
    "get_table_objects_by_name_req",
    "get_table_names_by_filter",
    "alter_table_with_environment_context",
    "alter_table_req",
    "drop_table",
    "drop_table_with_environment_context",
    "drop_table_req"
})
class TableCallsBasicDifferentialIT {
    private static final String DB = "difftbl_main";
    private static final String LISTED = "difftbl_listed";

    private static Differential differential;
    private static HmsValues values;
    private static String explicit;

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        values = peers.values();
        // Hive's spelling of a local path (file:/x, not file:///x), so that a given location reads back the same.
        explicit = "file:" + peers.runDirectory().resolve("explicit-locations");
        for (String db : List.of(DB, LISTED)) {
            differential.setUp("create_database " + db, (client, peer) -> {
                client.create_database(Structs.database(db));
                return null;
            });
        }
    }

    private static <T> void compare(String call, String description, Differential.Call<T> both) {
        differential.compare(call, description, both, values::of);
    }

    private static Differential.Call<Table> table(String db, String name) {
        return (client, peer) -> client.get_table_req(tableRequest(db, name)).getTable();
    }

    private static GetTableRequest tableRequest(String db, String name) {
        GetTableRequest request = new GetTableRequest(db, name);
        request.setCatName("hive");
        return request;
    }

    @Test
    void createAndGet() {
        compare(
                "create_table",
                "external, partitioned",
                done((client, peer) -> client.create_table(Structs.table(DB, "ext", "ds string", "hr int"))));
        compare("get_table_req", "ext", table(DB, "ext"));
        compare("create_table", "ext again", done((client, peer) -> client.create_table(Structs.table(DB, "ext"))));
        compare(
                "create_table",
                "Upper_Case name",
                done((client, peer) -> client.create_table(Structs.table(DB, "Upper_Case"))));
        compare("get_table_req", "upper_case", table(DB, "upper_case"));
        compare("get_table_req", "UPPER_CASE in DIFFTBL_MAIN", table(DB.toUpperCase(Locale.ROOT), "UPPER_CASE"));
        compare("create_table", "managed", done((client, peer) -> {
            Table table = Structs.table(DB, "managed");
            table.setTableType("MANAGED_TABLE");
            table.setParameters(new HashMap<>(Map.of("comment", "managed")));
            client.create_table(table);
        }));
        compare("get_table_req", "managed", table(DB, "managed"));
        compare("create_table", "at a given location", done((client, peer) -> {
            Table table = Structs.table(DB, "located");
            table.getSd().setLocation(explicit + "/located");
            client.create_table(table);
        }));
        compare("get_table_req", "located", table(DB, "located"));
        compare("create_table", "a view", done((client, peer) -> {
            Table view = Structs.table(DB, "view");
            view.setTableType("VIRTUAL_VIEW");
            view.setParameters(new HashMap<>());
            view.setViewOriginalText("select * from ext");
            view.setViewExpandedText("select `ext`.`id` from `difftbl_main`.`ext`");
            view.getSd().setInputFormat(null);
            view.getSd().setOutputFormat(null);
            client.create_table(view);
        }));
        compare("get_table_req", "view", table(DB, "view"));
        compare(
                "create_table",
                "in a missing database",
                done((client, peer) -> client.create_table(Structs.table("difftbl_missing", "t"))));
        for (String bad : new String[] {"bad name", "bad-name", ""}) {
            compare(
                    "create_table",
                    "bad name '" + bad + "'",
                    done((client, peer) -> client.create_table(Structs.table(DB, bad))));
        }
        compare("create_table", "a column named twice", done((client, peer) -> {
            Table table = Structs.table(DB, "twice");
            table.getSd().getCols().add(new FieldSchema("id", "int", null));
            client.create_table(table);
        }));
        compare(
                "create_table",
                "a partition key that is also a column",
                done((client, peer) -> client.create_table(Structs.table(DB, "overlap", "id bigint"))));
        compare("create_table", "a bad column type", done((client, peer) -> {
            Table table = Structs.table(DB, "badtype");
            table.getSd().getCols().add(new FieldSchema("c", "no such type(", null));
            client.create_table(table);
        }));
        compare("create_table", "no storage descriptor", done((client, peer) -> {
            Table table = Structs.table(DB, "nosd");
            table.setSd(null);
            client.create_table(table);
        }));
        compare(
                "create_table_with_environment_context",
                "envctx",
                done((client, peer) -> client.create_table_with_environment_context(
                        Structs.table(DB, "envctx"), new EnvironmentContext(new HashMap<>(Map.of("k", "v"))))));
        compare("get_table_req", "envctx", table(DB, "envctx"));
        compare(
                "create_table_req",
                "req",
                done((client, peer) ->
                        client.create_table_req(new CreateTableRequest(Structs.table(DB, "req", "ds string")))));
        compare("get_table_req", "req", table(DB, "req"));
        compare(
                "create_table_req",
                "req again",
                done((client, peer) -> client.create_table_req(new CreateTableRequest(Structs.table(DB, "req")))));

        compare("get_table_req", "missing table", table(DB, "missing"));
        compare("get_table_req", "missing database", table("difftbl_missing", "t"));
        compare(
                "get_table_req",
                "without a catalog",
                (client, peer) ->
                        client.get_table_req(new GetTableRequest(DB, "ext")).getTable());
        compare("get_table_req", "in catalog nocat", (client, peer) -> {
            GetTableRequest request = tableRequest(DB, "ext");
            request.setCatName("nocat");
            return client.get_table_req(request).getTable();
        });
        compare("get_table_req", "@hive#db", table("@hive#" + DB, "ext"));
        differential.assertAgreed("createAndGet");
    }

    @Test
    void listings() {
        for (String name : List.of("orders", "orders_2024", "customers", "ORDERS_archive")) {
            differential.setUp("create_table " + name, (client, peer) -> {
                Table table = Structs.table(LISTED, name);
                table.getParameters().put("table_type", name.startsWith("orders") ? "ICEBERG" : "HIVE");
                client.create_table(table);
                return null;
            });
        }
        differential.setUp("create_table managed", (client, peer) -> {
            Table table = Structs.table(LISTED, "managed");
            table.setTableType("MANAGED_TABLE");
            table.setParameters(new HashMap<>());
            client.create_table(table);
            return null;
        });
        compare("get_all_tables", LISTED, (client, peer) -> HmsValues.sorted(client.get_all_tables(LISTED)));
        compare(
                "get_all_tables",
                "missing database",
                (client, peer) -> HmsValues.sorted(client.get_all_tables("difftbl_missing")));
        for (String pattern :
                new String[] {"*", "orders*", "ORDERS*", "orders*|customers", "*_2024", "orders.2024", "", "nothing*"
                }) {
            compare(
                    "get_tables",
                    "'" + pattern + "'",
                    (client, peer) -> HmsValues.sorted(client.get_tables(LISTED, pattern)));
        }
        compare(
                "get_tables",
                "missing database",
                (client, peer) -> HmsValues.sorted(client.get_tables("difftbl_missing", "*")));
        for (String type : new String[] {"EXTERNAL_TABLE", "MANAGED_TABLE", "VIRTUAL_VIEW", "external_table", ""}) {
            compare(
                    "get_tables_by_type",
                    "'orders*' of type '" + type + "'",
                    (client, peer) -> HmsValues.sorted(client.get_tables_by_type(LISTED, "orders*", type)));
        }
        compare(
                "get_tables_by_type",
                "'*' of type MANAGED_TABLE",
                (client, peer) -> HmsValues.sorted(client.get_tables_by_type(LISTED, "*", "MANAGED_TABLE")));
        compare(
                "get_table_meta",
                "difftbl_listed, '*', no types",
                (client, peer) -> sortedMeta(client.get_table_meta(LISTED, "*", null)));
        compare(
                "get_table_meta",
                "difftbl_l*, 'orders*', EXTERNAL_TABLE",
                (client, peer) ->
                        sortedMeta(client.get_table_meta("difftbl_l*", "orders*", List.of("EXTERNAL_TABLE"))));
        compare(
                "get_table_meta",
                "difftbl_listed, '*', MANAGED_TABLE and VIRTUAL_VIEW",
                (client, peer) ->
                        sortedMeta(client.get_table_meta(LISTED, "*", List.of("MANAGED_TABLE", "VIRTUAL_VIEW"))));
        compare(
                "get_table_meta",
                "missing database",
                (client, peer) -> sortedMeta(client.get_table_meta("difftbl_missing", "*", null)));
        compare("get_table_objects_by_name_req", "three, one missing", (client, peer) -> {
            GetTablesRequest request = new GetTablesRequest(LISTED);
            request.setTblNames(new ArrayList<>(List.of("orders", "missing", "CUSTOMERS")));
            request.setCatName("hive");
            return client.get_table_objects_by_name_req(request).getTables();
        });
        compare("get_table_objects_by_name_req", "missing database", (client, peer) -> {
            GetTablesRequest request = new GetTablesRequest("difftbl_missing");
            request.setTblNames(new ArrayList<>(List.of("orders")));
            request.setCatName("hive");
            return client.get_table_objects_by_name_req(request).getTables();
        });
        for (String filter : new String[] {
            "hive_filter_field_owner__ = \"differential\"",
            "hive_filter_field_owner__ <> \"differential\"",
            "hive_filter_field_params__table_type like \"ICEBERG\"",
            "hive_filter_field_params__table_type = \"HIVE\"",
            "hive_filter_field_params__missing <> \"x\"",
            "hive_filter_field_tableName__ like \"(?i)ord.*\"",
            "hive_filter_field_tableType__ = \"MANAGED_TABLE\"",
            "hive_filter_field_last_access__ = 0",
            "hive_filter_field_last_access__ > 0",
            "hive_filter_field_owner__ like \"diff.*\" and hive_filter_field_params__table_type = \"ICEBERG\"",
            "no_such_key = \"x\"",
            "hive_filter_field_owner__ = ",
            ""
        }) {
            compare(
                    "get_table_names_by_filter",
                    filter,
                    (client, peer) -> HmsValues.sorted(client.get_table_names_by_filter(LISTED, filter, (short) -1)));
        }
        compare(
                "get_table_names_by_filter",
                "max 2",
                (client, peer) -> client.get_table_names_by_filter(
                                LISTED, "hive_filter_field_owner__ = \"differential\"", (short) 2)
                        .size());
        compare(
                "get_table_names_by_filter",
                "missing database",
                (client, peer) -> client.get_table_names_by_filter(
                        "difftbl_missing", "hive_filter_field_owner__ = \"differential\"", (short) -1));
        differential.assertAgreed("listings");
    }

    private static List<Object> sortedMeta(List<TableMeta> metas) {
        List<TableMeta> sorted = new ArrayList<>(metas);
        sorted.sort(
                (a, b) -> (a.getDbName() + "." + a.getTableName()).compareTo(b.getDbName() + "." + b.getTableName()));
        return new ArrayList<>(sorted);
    }

    @Test
    void alterAndDrop() {
        for (String name :
                List.of("altered", "swapped", "moved", "dropped", "dropped_ctx", "dropped_req", "partitioned")) {
            differential.setUp("create_table " + name, (client, peer) -> {
                client.create_table(Structs.table(
                        DB, name, name.equals("partitioned") ? new String[] {"ds string"} : new String[0]));
                return null;
            });
        }
        compare("alter_table_with_environment_context", "new parameters and a column", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "altered")).getTable();
            table.getParameters().put("added", "yes");
            table.getSd().getCols().add(new FieldSchema("extra", "int", "added"));
            client.alter_table_with_environment_context(DB, "altered", table, null);
        }));
        compare("get_table_req", "altered", table(DB, "altered"));
        compare("alter_table_with_environment_context", "a first metadata_location", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "swapped")).getTable();
            table.getParameters().put("metadata_location", "s3://b/2.json");
            client.alter_table_with_environment_context(DB, "swapped", table, null);
        }));
        compare("alter_table_with_environment_context", "expected parameter matches", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "swapped")).getTable();
            table.getParameters().put("metadata_location", "s3://b/3.json");
            client.alter_table_with_environment_context(DB, "swapped", table, expecting("s3://b/2.json"));
        }));
        compare("alter_table_with_environment_context", "expected parameter is stale", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "swapped")).getTable();
            table.getParameters().put("metadata_location", "s3://b/4.json");
            client.alter_table_with_environment_context(DB, "swapped", table, expecting("s3://b/2.json"));
        }));
        compare("get_table_req", "swapped", table(DB, "swapped"));
        compare("alter_table_with_environment_context", "rename", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "moved")).getTable();
            table.setTableName("moved_here");
            client.alter_table_with_environment_context(DB, "moved", table, null);
        }));
        compare("get_table_req", "moved (gone)", table(DB, "moved"));
        compare("get_table_req", "moved_here", table(DB, "moved_here"));
        compare("alter_table_with_environment_context", "rename onto an existing table", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "moved_here")).getTable();
            table.setTableName("altered");
            client.alter_table_with_environment_context(DB, "moved_here", table, null);
        }));
        compare(
                "alter_table_with_environment_context",
                "missing table",
                done((client, peer) -> client.alter_table_with_environment_context(
                        DB, "missing", Structs.table(DB, "missing"), null)));
        compare("alter_table_with_environment_context", "partition keys changed", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "partitioned")).getTable();
            table.getPartitionKeys().add(new FieldSchema("hr", "int", null));
            client.alter_table_with_environment_context(DB, "partitioned", table, null);
        }));
        compare("alter_table_req", "new owner", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "altered")).getTable();
            table.setOwner("new_owner");
            AlterTableRequest request = new AlterTableRequest(DB, "altered", table);
            request.setCatName("hive");
            client.alter_table_req(request);
        }));
        compare("get_table_req", "altered after alter_table_req", table(DB, "altered"));
        compare("alter_table_req", "expected parameter is stale", done((client, peer) -> {
            Table table = client.get_table_req(tableRequest(DB, "swapped")).getTable();
            table.getParameters().put("metadata_location", "s3://b/5.json");
            AlterTableRequest request = new AlterTableRequest(DB, "swapped", table);
            request.setCatName("hive");
            request.setExpectedParameterKey("metadata_location");
            request.setExpectedParameterValue("s3://b/1.json");
            client.alter_table_req(request);
        }));
        compare("alter_table_req", "missing table", done((client, peer) -> {
            AlterTableRequest request = new AlterTableRequest(DB, "missing", Structs.table(DB, "missing"));
            request.setCatName("hive");
            client.alter_table_req(request);
        }));

        compare("drop_table", "dropped", done((client, peer) -> client.drop_table(DB, "dropped", false)));
        compare("get_table_req", "dropped", table(DB, "dropped"));
        compare("drop_table", "missing", done((client, peer) -> client.drop_table(DB, "dropped", false)));
        compare(
                "drop_table",
                "missing database",
                done((client, peer) -> client.drop_table("difftbl_missing", "t", false)));
        compare(
                "drop_table_with_environment_context",
                "dropped_ctx",
                done((client, peer) -> client.drop_table_with_environment_context(
                        DB, "dropped_ctx", false, new EnvironmentContext(new HashMap<>()))));
        compare(
                "drop_table_with_environment_context",
                "missing",
                done((client, peer) -> client.drop_table_with_environment_context(DB, "dropped_ctx", false, null)));
        compare(
                "drop_table_req",
                "dropped_req",
                done((client, peer) -> client.drop_table_req(dropRequest("dropped_req"))));
        compare("drop_table_req", "missing", done((client, peer) -> client.drop_table_req(dropRequest("dropped_req"))));
        compare("get_all_tables", DB + " at the end", (client, peer) -> HmsValues.sorted(client.get_all_tables(DB)));
        differential.assertAgreed("alterAndDrop");
    }

    private static DropTableRequest dropRequest(String table) {
        DropTableRequest request = new DropTableRequest(DB, table);
        request.setCatalogName("hive");
        request.setDeleteData(false);
        return request;
    }

    private static EnvironmentContext expecting(String metadataLocation) {
        return new EnvironmentContext(new HashMap<>(
                Map.of("expected_parameter_key", "metadata_location", "expected_parameter_value", metadataLocation)));
    }
}
