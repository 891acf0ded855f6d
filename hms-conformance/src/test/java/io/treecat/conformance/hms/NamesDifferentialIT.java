package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.Differential.done;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Names at the Thrift edge against Hive 4.0.1 (issue 24): table names Hive's {@code validateName} takes and refuses
 * (its special characters, non-ASCII, control characters), columns and partition keys (named twice, empty, a key that
 * is also a column or holds {@code =} or {@code /}, a type Hive does not know), the same on {@code alter_table}
 * (rename, columns), and partition values holding {@code /} and {@code ..}. The exception types are compared; where
 * TreeCat refuses what Hive's metastore stores, {@link KnownHiveDivergences} says why. Every answer of both sides,
 * messages included, goes to {@code target/hms-differential/names.txt}. Databases are {@code diffnames*}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({"create_table", "alter_table_with_environment_context", "add_partition", "get_partition_names"})
class NamesDifferentialIT {
    private static final String DB = "diffnames";

    private static Differential differential;
    private static final List<String> REPORT = new ArrayList<>();

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        differential.setUp("create_database " + DB, (client, peer) -> {
            client.create_database(Structs.database(DB));
            return null;
        });
        differential.setUp("create_table " + DB + ".parted", (client, peer) -> {
            client.create_table(Structs.table(DB, "parted", "ds string"));
            return null;
        });
        for (String table : List.of("renamed", "dotted")) {
            differential.setUp("create_table " + DB + "." + table, (client, peer) -> {
                client.create_table(Structs.table(DB, table));
                return null;
            });
        }
    }

    @AfterAll
    static void writeReport() throws IOException {
        Path out = Path.of("target", "hms-differential", "names.txt");
        Files.createDirectories(out.getParent());
        Files.write(out, REPORT, StandardCharsets.UTF_8);
    }

    private static <T> void compare(String call, String description, Differential.Call<T> both) {
        Differential.Comparison comparison = differential.compare(call, description, both, value -> value);
        REPORT.add(call + ": " + description + (comparison.agreed() ? "" : "  [differs]") + "\n    hive: "
                + comparison.reference().describe() + "\n    treecat: "
                + comparison.candidate().describe());
    }

    private static Table table(String name, FieldSchema... extraColumns) {
        Table table = Structs.table(DB, name);
        table.getSd().getCols().addAll(List.of(extraColumns));
        return table;
    }

    private static Table partitioned(String name, String... keys) {
        Table table = Structs.table(DB, name);
        List<FieldSchema> partitionKeys = new ArrayList<>();
        for (String key : keys) {
            partitionKeys.add(new FieldSchema(key, "string", null));
        }
        table.setPartitionKeys(partitionKeys);
        return table;
    }

    @Test
    void tableNames() {
        // Hive 4 takes its special characters in a table name (metastore.support.special.characters.tablename).
        for (String name : List.of("with space", "a/b", "50%", "x=y", "dot.ted")) {
            compare(
                    "create_table",
                    "table name '" + name + "'",
                    done((client, peer) -> client.create_table(table(name))));
        }
        // Hive takes '..' too (its default location encodes the dots); the lake does not.
        compare("create_table", "table name '..'", done((client, peer) -> client.create_table(table(".."))));
        for (String name : List.of("données", "tab\tle", "back\\slash", "日本")) {
            compare(
                    "create_table",
                    "table name '" + name.replace("\t", "\\t") + "'",
                    done((client, peer) -> client.create_table(table(name))));
        }
        differential.assertAgreed("tableNames");
    }

    @Test
    void columnsAndPartitionKeys() {
        compare(
                "create_table",
                "a column without a name",
                done((client, peer) -> client.create_table(table("noname", new FieldSchema("", "int", null)))));
        compare(
                "create_table",
                "a column named twice in other case",
                done((client, peer) -> client.create_table(table("twice_case", new FieldSchema("ID", "int", null)))));
        compare(
                "create_table",
                "an upper-case column type",
                done((client, peer) -> client.create_table(table("upper_type", new FieldSchema("c", "INT", null)))));
        compare(
                "create_table",
                "a partition key named twice",
                done((client, peer) -> client.create_table(partitioned("keys_twice", "ds", "ds"))));
        compare(
                "create_table",
                "a partition key without a name",
                done((client, peer) -> client.create_table(partitioned("keys_noname", ""))));
        for (String key : List.of("a=b", "a/b", "a%b", "a:b")) {
            compare(
                    "create_table",
                    "a partition key '" + key + "'",
                    done((client, peer) -> client.create_table(partitioned("key_" + key.charAt(1), key))));
        }
        differential.assertAgreed("columnsAndPartitionKeys");
    }

    @Test
    void alterTable() {
        for (String name : List.of("données", "back\\slash")) {
            compare("alter_table_with_environment_context", "rename to '" + name + "'", done((client, peer) -> {
                Table table = client.get_table_req(request("renamed")).getTable();
                table.setTableName(name);
                client.alter_table_with_environment_context(DB, "renamed", table, null);
            }));
        }
        // Hive moves the table to '../dotted' (encoded in its location); the lake keeps '..' out of names.
        compare("alter_table_with_environment_context", "rename to '../dotted'", done((client, peer) -> {
            Table table = client.get_table_req(request("dotted")).getTable();
            table.setTableName("../dotted");
            client.alter_table_with_environment_context(DB, "dotted", table, null);
        }));
        compare("alter_table_with_environment_context", "a column named twice", done((client, peer) -> {
            Table table = client.get_table_req(request("renamed")).getTable();
            table.getSd().getCols().add(new FieldSchema("id", "int", null));
            client.alter_table_with_environment_context(DB, "renamed", table, null);
        }));
        compare("alter_table_with_environment_context", "a bad column type", done((client, peer) -> {
            Table table = client.get_table_req(request("renamed")).getTable();
            table.getSd().getCols().add(new FieldSchema("c", "no such type(", null));
            client.alter_table_with_environment_context(DB, "renamed", table, null);
        }));
        differential.assertAgreed("alterTable");
    }

    @Test
    void partitionValuesStayOnePathSegment() {
        for (String value : List.of("../../../../escaped", "a/b", "..", "x%2Fy")) {
            compare(
                    "add_partition",
                    "value '" + value + "'",
                    done((client, peer) -> client.add_partition(Structs.partition(DB, "parted", value))));
        }
        compare(
                "get_partition_names",
                "parted after the adds",
                (client, peer) -> HmsValues.sorted(client.get_partition_names(DB, "parted", (short) -1)));
        differential.assertAgreed("partitionValuesStayOnePathSegment");
    }

    private static GetTableRequest request(String name) {
        GetTableRequest request = new GetTableRequest(DB, name);
        request.setCatName("hive");
        return request;
    }
}
