package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.AlterCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.CreateCatalogRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropCatalogRequest;
import org.apache.hadoop.hive.metastore.api.DropDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetCatalogRequest;
import org.apache.hadoop.hive.metastore.api.GetCatalogResponse;
import org.apache.hadoop.hive.metastore.api.PartitionEventType;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Catalogs, the default database, the configuration calls and partition marks against Hive 4.0.1 and TreeCat: each
 * comparison's description starts with the Thrift call it compares ({@code "get_catalogs: after create"}).
 *
 * <p>Compared as Hive clients see them, without what differs by design: locations (each server has its own
 * warehouse, and a catalog's {@code default} database is at {@code <catalog>/default} in TreeCat, at the catalog's
 * root in Hive, see docs/hms-thrift.md), create times, the owner Hive gives a database made without one (its
 * process user), and the metastore id (each server has its own: compared as "a UUID, the same twice"). Calls whose
 * Hive answer is a crash (an internal {@code TApplicationException} for a null name) are left out; TreeCat's answer
 * to those is in catalog-hms-thrift's tests.
 */
@ExtendWith(SharedHmsPeers.class)
@FreshPeers
@ComparesCalls({
    "alter_catalog",
    "create_catalog",
    "create_database",
    "create_table",
    "drop_catalog",
    "drop_database",
    "drop_database_req",
    "drop_table",
    "flushCache",
    "getMetaConf",
    "get_all_databases",
    "get_all_tables",
    "get_catalog",
    "get_catalogs",
    "get_config_value",
    "get_database",
    "get_databases",
    "get_metastore_db_uuid",
    "isPartitionMarkedForEvent",
    "markPartitionForEvent",
    "setMetaConf"
})
class CatalogAndConfigDifferentialIT {
    private static final Map<String, String> SPEC = Map.of("ds", "2025-01-01", "hr", "7");

    private static HmsPeers peers;

    /** A pair of its own ({@link FreshPeers}): it checks what a fresh metastore holds. */
    @BeforeAll
    static void startPeers(HmsPeers fresh) {
        peers = fresh;
    }

    /** A location of this side's own, under its run directory. */
    private static String location(MetastorePeer peer, String name) {
        return peer.log().toAbsolutePath().getParent().resolve(name).toUri().toString();
    }

    private static Map<String, Object> catalog(GetCatalogResponse response) {
        Catalog catalog = response.getCatalog();
        Map<String, Object> compared = new LinkedHashMap<>();
        compared.put("name", catalog.getName());
        compared.put("description", catalog.getDescription());
        compared.put(
                "hasLocation",
                catalog.getLocationUri() != null && !catalog.getLocationUri().isEmpty());
        return compared;
    }

    private static Map<String, Object> database(Database database) {
        Map<String, Object> compared = new LinkedHashMap<>();
        compared.put("name", database.getName());
        compared.put("description", database.getDescription());
        compared.put("catalogName", database.getCatalogName());
        compared.put("parameters", new TreeMap<>(database.getParameters()));
        compared.put(
                "hasLocation",
                database.getLocationUri() != null && !database.getLocationUri().isEmpty());
        return compared;
    }

    private static Map<String, Object> owned(Database database) {
        Map<String, Object> compared = database(database);
        compared.put("ownerName", database.getOwnerName());
        compared.put("ownerType", database.getOwnerType());
        return compared;
    }

    private static Table table(String catalog, String db, String name, List<FieldSchema> keys) {
        Table table = new Table();
        table.setCatName(catalog);
        table.setDbName(db);
        table.setTableName(name);
        table.setTableType("EXTERNAL_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        table.setSd(sd);
        table.setPartitionKeys(keys);
        table.setParameters(new HashMap<>(Map.of("EXTERNAL", "TRUE")));
        return table;
    }

    private static DropCatalogRequest drop(String name) {
        DropCatalogRequest request = new DropCatalogRequest(name);
        // Hive 4.1's request says ifExists unless told otherwise; 4.0.1 has no such field and always refuses.
        request.setIfExists(false);
        return request;
    }

    private static void check(Differential differential, String report) throws IOException {
        int comparisons = differential.comparisons();
        List<Differential.Mismatch> mismatches = differential.takeMismatches();
        String text = differential.report(mismatches, comparisons);
        Path out = Path.of("target", "hms-differential", report);
        Files.writeString(out, text, StandardCharsets.UTF_8);
        assertThat(mismatches).withFailMessage("%s", text).isEmpty();
    }

    @Test
    void defaultCatalogAndDatabase() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();

        // A few answers are checked against what Hive is known to answer, so that agreement is never vacuous.
        expect(
                differential.compare("get_catalogs: fresh", (client, peer) -> client.get_catalogs(), r -> r.getNames()),
                List.of("hive"));
        for (String name : List.of("hive", "HIVE")) {
            differential.compare(
                    "get_catalog: " + name,
                    (client, peer) -> client.get_catalog(new GetCatalogRequest(name)),
                    CatalogAndConfigDifferentialIT::catalog);
        }
        for (String name : List.of("nope", "")) {
            differential.compare(
                    "get_catalog: unknown '" + name + "'",
                    (client, peer) -> client.get_catalog(new GetCatalogRequest(name)),
                    CatalogAndConfigDifferentialIT::catalog);
        }
        expect(
                differential.compare(
                        "get_all_databases: fresh", (client, peer) -> client.get_all_databases(), List::copyOf),
                List.of("default"));
        differential.compare(
                "get_database: default",
                (client, peer) -> client.get_database("default"),
                CatalogAndConfigDifferentialIT::owned);
        differential.compare(
                "get_database: @hive#default",
                (client, peer) -> client.get_database("@hive#default"),
                CatalogAndConfigDifferentialIT::owned);
        expectThrown(
                differential.compare(
                        "drop_database: default",
                        (client, peer) -> {
                            client.drop_database("default", true, true);
                            return null;
                        },
                        Function.identity()),
                "MetaException");
        differential.compare(
                "drop_database: @hive#default",
                (client, peer) -> {
                    client.drop_database("@hive#default", false, false);
                    return null;
                },
                Function.identity());
        differential.compare(
                "drop_database_req: default in hive",
                (client, peer) -> {
                    DropDatabaseRequest request = new DropDatabaseRequest("default", true, true, true);
                    request.setCatalogName("hive");
                    client.drop_database_req(request);
                    return null;
                },
                Function.identity());
        differential.compare(
                "get_all_databases: after refused drops", (client, peer) -> client.get_all_databases(), List::copyOf);
        check(differential, "catalogs-default.txt");
    }

    @Test
    void catalogsMadeUsedAndDropped() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();

        differential.compare(
                "create_catalog: c1",
                (client, peer) -> {
                    Catalog catalog = new Catalog("C1", location(peer, "c1"));
                    catalog.setDescription("first");
                    client.create_catalog(new CreateCatalogRequest(catalog));
                    return null;
                },
                Function.identity());
        expect(
                differential.compare(
                        "get_catalogs: after create", (client, peer) -> client.get_catalogs(), r -> r.getNames()),
                List.of("c1", "hive"));
        differential.compare(
                "get_catalog: c1",
                (client, peer) -> client.get_catalog(new GetCatalogRequest("c1")),
                CatalogAndConfigDifferentialIT::catalog);
        differential.compare("get_databases: @c1#", (client, peer) -> client.get_databases("@c1#"), List::copyOf);
        differential.compare(
                "get_database: @c1#default",
                (client, peer) -> client.get_database("@c1#default"),
                CatalogAndConfigDifferentialIT::database);
        for (String taken : List.of("c1", "hive", "HIVE")) {
            differential.compare(
                    "create_catalog: taken name " + taken,
                    (client, peer) -> {
                        client.create_catalog(new CreateCatalogRequest(new Catalog(taken, location(peer, "taken"))));
                        return null;
                    },
                    Function.identity());
        }
        for (String bad : List.of("a-b", "", "x".repeat(300))) {
            differential.compare(
                    "create_catalog: bad name " + (bad.length() > 20 ? bad.length() + " characters" : "'" + bad + "'"),
                    (client, peer) -> {
                        client.create_catalog(new CreateCatalogRequest(new Catalog(bad, location(peer, "bad"))));
                        return null;
                    },
                    Function.identity());
        }
        differential.compare(
                "create_catalog: no location",
                (client, peer) -> {
                    Catalog catalog = new Catalog();
                    catalog.setName("c2");
                    client.create_catalog(new CreateCatalogRequest(catalog));
                    return null;
                },
                Function.identity());

        // A database and a table in c1, named both ways.
        differential.compare(
                "create_database: in c1",
                (client, peer) -> {
                    Database database = new Database();
                    database.setName("d1");
                    database.setCatalogName("c1");
                    client.create_database(database);
                    return null;
                },
                Function.identity());
        differential.compare(
                "get_databases: @c1#* after create", (client, peer) -> client.get_databases("@c1#*"), List::copyOf);
        differential.compare(
                "get_all_databases: hive unchanged", (client, peer) -> client.get_all_databases(), List::copyOf);
        differential.compare(
                "drop_catalog: with a database",
                (client, peer) -> {
                    client.drop_catalog(drop("c1"));
                    return null;
                },
                Function.identity());
        differential.compare(
                "drop_database: @c1#d1",
                (client, peer) -> {
                    client.drop_database("@c1#d1", true, false);
                    return null;
                },
                Function.identity());
        differential.compare(
                "create_table: in c1.default",
                (client, peer) -> {
                    client.create_table(table("c1", "default", "t", List.of()));
                    return null;
                },
                Function.identity());
        differential.compare(
                "get_all_tables: @c1#default", (client, peer) -> client.get_all_tables("@c1#default"), List::copyOf);
        differential.compare(
                "get_all_tables: default of hive", (client, peer) -> client.get_all_tables("default"), List::copyOf);
        differential.compare(
                "drop_catalog: with a table in its default database",
                (client, peer) -> {
                    client.drop_catalog(drop("c1"));
                    return null;
                },
                Function.identity());
        differential.compare(
                "drop_table: c1.default.t",
                (client, peer) -> {
                    client.drop_table("@c1#default", "t", true);
                    return null;
                },
                Function.identity());

        differential.compare(
                "alter_catalog: rename",
                (client, peer) -> {
                    client.alter_catalog(new AlterCatalogRequest("c1", new Catalog("c9", location(peer, "c1"))));
                    return null;
                },
                Function.identity());
        differential.compare(
                "alter_catalog: unknown",
                (client, peer) -> {
                    client.alter_catalog(new AlterCatalogRequest("nope", new Catalog("nope", location(peer, "n"))));
                    return null;
                },
                Function.identity());
        differential.compare(
                "alter_catalog: description and location",
                (client, peer) -> {
                    Catalog changed = new Catalog("c1", location(peer, "c1-moved"));
                    changed.setDescription("moved");
                    client.alter_catalog(new AlterCatalogRequest("c1", changed));
                    return null;
                },
                Function.identity());
        differential.compare(
                "get_catalog: c1 after alter",
                (client, peer) -> client.get_catalog(new GetCatalogRequest("c1")),
                CatalogAndConfigDifferentialIT::catalog);

        for (String name : List.of("hive", "HIVE", "nope")) {
            differential.compare(
                    "drop_catalog: " + name,
                    (client, peer) -> {
                        client.drop_catalog(drop(name));
                        return null;
                    },
                    Function.identity());
        }
        differential.compare(
                "drop_catalog: c1 (only an empty default left)",
                (client, peer) -> {
                    client.drop_catalog(drop("c1"));
                    return null;
                },
                Function.identity());
        differential.compare("get_catalogs: after drop", (client, peer) -> client.get_catalogs(), r -> r.getNames());
        differential.compare(
                "get_catalog: dropped",
                (client, peer) -> client.get_catalog(new GetCatalogRequest("c1")),
                CatalogAndConfigDifferentialIT::catalog);

        // An unknown catalog reads as an empty one; nothing can be made in it.
        differential.compare("get_databases: @nope#", (client, peer) -> client.get_databases("@nope#"), List::copyOf);
        differential.compare(
                "get_all_tables: @nope#default",
                (client, peer) -> client.get_all_tables("@nope#default"),
                List::copyOf);
        differential.compare(
                "get_database: @nope#default",
                (client, peer) -> client.get_database("@nope#default"),
                CatalogAndConfigDifferentialIT::database);
        differential.compare(
                "create_database: in an unknown catalog",
                (client, peer) -> {
                    Database database = new Database();
                    database.setName("d");
                    database.setCatalogName("nope");
                    client.create_database(database);
                    return null;
                },
                Function.identity());
        check(differential, "catalogs.txt");
    }

    private static final List<String> SETTINGS = List.of(
            "metastore.try.direct.sql",
            "metastore.try.direct.sql.ddl",
            "metastore.client.socket.timeout",
            "metastore.partition.name.whitelist.pattern",
            "metastore.partition.order.expr",
            "metastore.client.capability.check",
            "metastore.disallow.incompatible.col.type.changes",
            "metastore.expression.proxy");

    @Test
    void configurationAndSessionSettings() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();

        List<String> keys = new ArrayList<>();
        for (String setting : SETTINGS) {
            keys.add(setting);
            keys.add("hive." + setting);
        }
        keys.addAll(List.of(
                "metastore.default.partition.name",
                "hive.exec.default.partition.name",
                "metastore.batch.retrieve.max",
                "hive.metastore.batch.retrieve.max",
                "metastore.batch.retrieve.table.partition.max",
                "metastore.txn.timeout",
                "hive.txn.timeout",
                "hive.treecat.unknown.key",
                "mapred.unknown.key",
                "javax.jdo.option.ConnectionPassword",
                "fs.s3a.secret.key",
                ""));
        for (String key : keys) {
            differential.compare(
                    "get_config_value: " + key, (client, peer) -> client.get_config_value(key, "dflt"), v -> v);
        }
        differential.compare(
                "get_config_value: no name", (client, peer) -> client.get_config_value(null, "dflt"), v -> v);
        for (String key : List.of("metastore.warehouse.dir", "hive.metastore.warehouse.dir")) {
            differential.compare(
                    "get_config_value: " + key + " (set)",
                    (client, peer) -> client.get_config_value(key, null),
                    v -> v != null && !v.isEmpty());
        }
        for (String key : keys) {
            differential.compare("getMetaConf: " + key, (client, peer) -> client.getMetaConf(key), v -> v);
        }
        differential.compare("getMetaConf: null", (client, peer) -> client.getMetaConf(null), v -> v);

        for (Map.Entry<String, String> set : List.of(
                Map.entry("metastore.try.direct.sql", "false"),
                Map.entry("hive.metastore.client.socket.timeout", "20s"),
                Map.entry("metastore.client.socket.timeout", "abc"),
                Map.entry("metastore.client.socket.timeout", "12parsecs"),
                Map.entry("metastore.client.capability.check", "not-a-boolean"),
                Map.entry("metastore.warehouse.dir", "file:/elsewhere"),
                Map.entry("hive.treecat.unknown.key", "x"))) {
            differential.compare(
                    "setMetaConf: " + set.getKey() + "=" + set.getValue(),
                    (client, peer) -> {
                        client.setMetaConf(set.getKey(), set.getValue());
                        return null;
                    },
                    Function.identity());
        }
        for (String key : List.of(
                "metastore.try.direct.sql",
                "hive.metastore.try.direct.sql",
                "hive.metastore.client.socket.timeout",
                "metastore.client.socket.timeout",
                "metastore.client.capability.check")) {
            differential.compare(
                    "getMetaConf: " + key + " after set", (client, peer) -> client.getMetaConf(key), v -> v);
        }
        differential.compare(
                "get_config_value: metastore.try.direct.sql after setMetaConf",
                (client, peer) -> client.get_config_value("metastore.try.direct.sql", "dflt"),
                v -> v);
        differential.compare(
                "getMetaConf: metastore.try.direct.sql on another connection",
                (client, peer) -> {
                    TSocket socket = new TSocket("127.0.0.1", peer.port(), 60_000);
                    socket.open();
                    try {
                        return new ThriftHiveMetastore.Client(new TBinaryProtocol(socket))
                                .getMetaConf("metastore.try.direct.sql");
                    } finally {
                        socket.close();
                    }
                },
                v -> v);

        expect(
                differential.compare(
                        "get_metastore_db_uuid: one UUID, the same twice",
                        (client, peer) -> {
                            String first = client.get_metastore_db_uuid();
                            String second = client.get_metastore_db_uuid();
                            return UUID.fromString(first).toString().equals(first) && first.equals(second);
                        },
                        v -> v),
                true);
        differential.compare(
                "flushCache: succeeds",
                (client, peer) -> {
                    client.flushCache();
                    return null;
                },
                Function.identity());
        check(differential, "config.txt");
    }

    @Test
    void partitionMarks() throws IOException {
        Differential differential = peers.differential();
        differential.takeMismatches();
        differential.setUp("create_table: default.marked", (client, peer) -> {
            client.create_table(table(
                    "hive",
                    "default",
                    "marked",
                    List.of(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null))));
            return null;
        });
        differential.setUp("create_table: default.unpartitioned", (client, peer) -> {
            client.create_table(table("hive", "default", "unpartitioned", List.of()));
            return null;
        });
        PartitionEventType load = PartitionEventType.LOAD_DONE;

        differential.compare(
                "isPartitionMarkedForEvent: before",
                (client, peer) -> client.isPartitionMarkedForEvent("default", "marked", SPEC, load),
                v -> v);
        markCompare(differential, "markPartitionForEvent: a partition", "default", "marked", SPEC, load);
        expect(
                differential.compare(
                        "isPartitionMarkedForEvent: after",
                        (client, peer) -> client.isPartitionMarkedForEvent("default", "marked", SPEC, load),
                        v -> v),
                true);
        differential.compare(
                "isPartitionMarkedForEvent: @hive#default",
                (client, peer) -> client.isPartitionMarkedForEvent("@hive#default", "marked", SPEC, load),
                v -> v);
        differential.compare(
                "isPartitionMarkedForEvent: another partition",
                (client, peer) -> client.isPartitionMarkedForEvent(
                        "default", "marked", Map.of("ds", "2025-01-01", "hr", "8"), load),
                v -> v);
        markCompare(differential, "markPartitionForEvent: again", "default", "marked", SPEC, load);
        markCompare(
                differential,
                "markPartitionForEvent: an integer key with no integer",
                "default",
                "marked",
                Map.of("ds", "x", "hr", "not-a-number"),
                load);
        markCompare(differential, "markPartitionForEvent: unpartitioned", "default", "unpartitioned", Map.of(), load);
        differential.compare(
                "isPartitionMarkedForEvent: unpartitioned",
                (client, peer) -> client.isPartitionMarkedForEvent("default", "unpartitioned", Map.of(), load),
                v -> v);

        Map<String, Map<String, String>> badSpecs = new LinkedHashMap<>();
        badSpecs.put("too few keys", Map.of("ds", "x"));
        badSpecs.put("an unknown key", Map.of("ds", "x", "nope", "1"));
        badSpecs.put("an upper-case key", Map.of("DS", "x", "hr", "1"));
        badSpecs.put("a value too long", Map.of("ds", "v".repeat(1000), "hr", "1"));
        badSpecs.put("no spec", null);
        for (Map.Entry<String, Map<String, String>> bad : badSpecs.entrySet()) {
            markCompare(
                    differential, "markPartitionForEvent: " + bad.getKey(), "default", "marked", bad.getValue(), load);
            if (!bad.getKey().equals("a value too long")) {
                differential.compare(
                        "isPartitionMarkedForEvent: " + bad.getKey(),
                        (client, peer) -> client.isPartitionMarkedForEvent("default", "marked", bad.getValue(), load),
                        v -> v);
            }
        }
        markCompare(
                differential,
                "markPartitionForEvent: unpartitioned with a key",
                "default",
                "unpartitioned",
                Map.of("id", "1"),
                load);
        markCompare(differential, "markPartitionForEvent: unknown table", "default", "nope", SPEC, load);
        markCompare(differential, "markPartitionForEvent: unknown database", "nodb", "marked", SPEC, load);
        markCompare(differential, "markPartitionForEvent: unknown catalog", "@nope#default", "marked", SPEC, load);
        markCompare(differential, "markPartitionForEvent: no event type", "default", "marked", SPEC, null);
        markCompare(differential, "markPartitionForEvent: no table name", "default", null, SPEC, load);
        differential.compare(
                "isPartitionMarkedForEvent: unknown table",
                (client, peer) -> client.isPartitionMarkedForEvent("default", "nope", SPEC, load),
                v -> v);
        differential.compare(
                "isPartitionMarkedForEvent: no event type",
                (client, peer) -> client.isPartitionMarkedForEvent("default", "marked", SPEC, null),
                v -> v);
        check(differential, "partition-marks.txt");
    }

    /** Hive's answer is {@code expected} (and TreeCat's agrees, or the comparison reports it). */
    private static void expect(Differential.Comparison comparison, Object expected) {
        assertThat(comparison.reference().value())
                .as(comparison.reference().describe())
                .isEqualTo(expected);
    }

    /** Hive refused the call with {@code exception} (a simple class name). */
    private static void expectThrown(Differential.Comparison comparison, String exception) {
        assertThat(comparison.reference().describe()).startsWith(exception + ":");
    }

    private static void markCompare(
            Differential differential,
            String description,
            String db,
            String table,
            Map<String, String> spec,
            PartitionEventType type) {
        differential.compare(
                description,
                (client, peer) -> {
                    client.markPartitionForEvent(db, table, spec, type);
                    return null;
                },
                Function.identity());
    }
}
