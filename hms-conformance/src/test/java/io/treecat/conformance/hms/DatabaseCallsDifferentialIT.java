package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.Differential.done;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.AlterDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.CreateDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.DropDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.GetDatabaseRequest;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The database calls against Hive 4.0.1 and TreeCat: create (both forms), get (both forms), list with Hive's
 * patterns, alter (Hive's merge), drop (not empty, cascade, unknown), with the bad names and missing databases each
 * refuses. Databases are {@code diffdb_*}, so the classes sharing the peers do not meet.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "create_database",
    "create_database_req",
    "get_database",
    "get_database_req",
    "get_all_databases",
    "get_databases",
    "alter_database",
    "alter_database_req",
    "drop_database",
    "drop_database_req",
    "get_all_tables"
})
class DatabaseCallsDifferentialIT {
    private static Differential differential;
    private static HmsValues values;
    private static String explicit;

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        values = peers.values();
        // Hive's spelling of a local path (file:/x, as Hadoop's Path writes it), so that a given location reads back
        // the same.
        explicit = "file:" + peers.runDirectory().resolve("explicit-locations");
    }

    @Test
    void createAndGet() {
        differential.compare(
                "create_database",
                "diffdb_a",
                done((client, peer) -> client.create_database(Structs.database("diffdb_a"))),
                values::of);
        differential.compare("get_database", "diffdb_a", (client, peer) -> client.get_database("diffdb_a"), values::of);
        differential.compare(
                "create_database",
                "diffdb_a again",
                done((client, peer) -> client.create_database(Structs.database("diffdb_a"))),
                values::of);
        differential.compare(
                "create_database",
                "DiffDb_Upper",
                done((client, peer) -> client.create_database(Structs.database("DiffDb_Upper"))),
                values::of);
        differential.compare(
                "get_database", "diffdb_upper", (client, peer) -> client.get_database("diffdb_upper"), values::of);
        differential.compare(
                "get_database", "DIFFDB_UPPER", (client, peer) -> client.get_database("DIFFDB_UPPER"), values::of);
        String location = explicit + "/diffdb_located";
        differential.compare(
                "create_database",
                "with a location",
                done((client, peer) -> {
                    Database database = Structs.database("diffdb_located");
                    database.setLocationUri(location);
                    client.create_database(database);
                }),
                values::of);
        differential.compare(
                "get_database", "diffdb_located", (client, peer) -> client.get_database("diffdb_located"), values::of);
        String spelled = Path.of(explicit.substring("file:".length()), "diffdb_slashes")
                .toUri()
                .toString();
        differential.compare(
                "create_database",
                "with a file:/// location",
                done((client, peer) -> {
                    Database database = Structs.database("diffdb_slashes");
                    database.setLocationUri(spelled);
                    client.create_database(database);
                }),
                values::of);
        differential.compare(
                "get_database", "diffdb_slashes", (client, peer) -> client.get_database("diffdb_slashes"), values::of);
        differential.compare(
                "create_database",
                "bare (name only)",
                done((client, peer) -> {
                    Database database = new Database();
                    database.setName("diffdb_bare");
                    client.create_database(database);
                }),
                values::of);
        differential.compare(
                "get_database", "diffdb_bare", (client, peer) -> client.get_database("diffdb_bare"), values::of);
        differential.compare(
                "create_database",
                "in catalog hive",
                done((client, peer) -> {
                    Database database = Structs.database("diffdb_cat");
                    database.setCatalogName("hive");
                    client.create_database(database);
                }),
                values::of);
        differential.compare(
                "create_database",
                "in an unknown catalog",
                done((client, peer) -> {
                    Database database = Structs.database("diffdb_nocat");
                    database.setCatalogName("nocat");
                    client.create_database(database);
                }),
                values::of);
        differential.compare(
                "create_database",
                "owned by a role",
                done((client, peer) -> {
                    Database database = Structs.database("diffdb_role");
                    database.setOwnerName("admins");
                    database.setOwnerType(PrincipalType.ROLE);
                    client.create_database(database);
                }),
                values::of);
        differential.compare(
                "get_database", "diffdb_role", (client, peer) -> client.get_database("diffdb_role"), values::of);
        for (String bad : new String[] {"diff db", "diff-db", "diff.db", "", "d".repeat(129)}) {
            differential.compare(
                    "create_database",
                    "bad name '" + shortened(bad) + "'",
                    done((client, peer) -> client.create_database(Structs.database(bad))),
                    values::of);
        }
        differential.compare(
                "create_database",
                "name of 128 characters",
                done((client, peer) -> client.create_database(Structs.database("d".repeat(128)))),
                values::of);
        differential.compare(
                "create_database",
                "null name",
                done((client, peer) -> client.create_database(new Database())),
                values::of);

        differential.compare(
                "create_database_req",
                "diffdb_req",
                done((client, peer) -> {
                    CreateDatabaseRequest request = new CreateDatabaseRequest("diffdb_req");
                    request.setDescription("made by create_database_req");
                    request.setParameters(new HashMap<>(Map.of("k", "v")));
                    request.setOwnerName(Structs.OWNER);
                    request.setOwnerType(PrincipalType.USER);
                    request.setCatalogName("hive");
                    client.create_database_req(request);
                }),
                values::of);
        differential.compare(
                "create_database_req",
                "diffdb_req again",
                done((client, peer) -> client.create_database_req(new CreateDatabaseRequest("diffdb_req"))),
                values::of);
        differential.compare(
                "create_database_req",
                "bad name",
                done((client, peer) -> client.create_database_req(new CreateDatabaseRequest("diffdb req"))),
                values::of);
        differential.compare(
                "get_database_req",
                "diffdb_req",
                (client, peer) -> client.get_database_req(getRequest("diffdb_req", null)),
                values::of);
        differential.compare(
                "get_database_req",
                "diffdb_req in hive",
                (client, peer) -> client.get_database_req(getRequest("diffdb_req", "hive")),
                values::of);
        differential.compare(
                "get_database_req",
                "diffdb_req in nocat",
                (client, peer) -> client.get_database_req(getRequest("diffdb_req", "nocat")),
                values::of);
        differential.compare(
                "get_database_req",
                "missing",
                (client, peer) -> client.get_database_req(getRequest("diffdb_missing", null)),
                values::of);

        differential.compare(
                "get_database", "missing", (client, peer) -> client.get_database("diffdb_missing"), values::of);
        differential.compare(
                "get_database", "@hive#diffdb_a", (client, peer) -> client.get_database("@hive#diffdb_a"), values::of);
        differential.compare(
                "get_database",
                "@nocat#diffdb_a",
                (client, peer) -> client.get_database("@nocat#diffdb_a"),
                values::of);
        differential.compare("get_database", "empty name", (client, peer) -> client.get_database(""), values::of);
        differential.compare("get_database", "null name", (client, peer) -> client.get_database(null), values::of);
        differential.compare("get_database", "default", (client, peer) -> client.get_database("default"), values::of);
        differential.assertAgreed("createAndGet");
    }

    @Test
    void list() {
        for (String db : new String[] {"diffdb_list_a", "diffdb_list_b", "diffdb_list_ab"}) {
            differential.setUp("create_database " + db, (client, peer) -> {
                client.create_database(Structs.database(db));
                return null;
            });
        }
        for (String pattern : new String[] {
            "diffdb_list*", "diffdb_list_a|diffdb_list_b", "DIFFDB_LIST_A", "diffdb_list_?", "diffdb_list.*", "*_ab",
            "diffdb_list_a*|nothing", "@hive#diffdb_list*", "@hive#", "@nocat#diffdb*", "diffdb_nothing*", ""
        }) {
            differential.compare(
                    "get_databases", "'" + pattern + "'", (client, peer) -> client.get_databases(pattern), values::of);
        }
        differential.compare("get_databases", "null", (client, peer) -> client.get_databases(null), values::of);
        differential.compare(
                "get_all_databases", "every database", (client, peer) -> client.get_all_databases(), values::of);
        differential.assertAgreed("list");
    }

    @Test
    void alter() {
        for (String db : new String[] {"diffdb_alter", "diffdb_partial"}) {
            differential.setUp("create_database " + db, (client, peer) -> {
                client.create_database(Structs.database(db));
                return null;
            });
        }
        // As clients alter a database: the whole struct as read, with changes.
        differential.compare(
                "alter_database",
                "new description and parameters",
                done((client, peer) -> {
                    Database changed = client.get_database("diffdb_alter");
                    changed.setDescription("changed");
                    changed.setParameters(new HashMap<>(Map.of("added", "1")));
                    client.alter_database("diffdb_alter", changed);
                }),
                values::of);
        differential.compare(
                "get_database",
                "diffdb_alter after the alter",
                (client, peer) -> client.get_database("diffdb_alter"),
                values::of);
        differential.compare(
                "alter_database",
                "a new owner",
                done((client, peer) -> {
                    Database changed = client.get_database("diffdb_alter");
                    changed.setOwnerName("someone");
                    changed.setOwnerType(PrincipalType.ROLE);
                    client.alter_database("diffdb_alter", changed);
                }),
                values::of);
        differential.compare(
                "get_database",
                "diffdb_alter after the new owner",
                (client, peer) -> client.get_database("diffdb_alter"),
                values::of);
        String location = explicit + "/diffdb_alter_moved";
        differential.compare(
                "alter_database",
                "a new location",
                done((client, peer) -> {
                    Database changed = client.get_database("diffdb_alter");
                    changed.setLocationUri(location);
                    client.alter_database("diffdb_alter", changed);
                }),
                values::of);
        differential.compare(
                "get_database",
                "diffdb_alter after the move",
                (client, peer) -> client.get_database("diffdb_alter"),
                values::of);
        differential.compare(
                "alter_database",
                "a new name",
                done((client, peer) -> {
                    Database changed = client.get_database("diffdb_alter");
                    changed.setName("diffdb_renamed");
                    client.alter_database("diffdb_alter", changed);
                }),
                values::of);
        differential.compare(
                "get_database", "diffdb_renamed", (client, peer) -> client.get_database("diffdb_renamed"), values::of);
        differential.compare(
                "alter_database",
                "missing database",
                done((client, peer) -> client.alter_database("diffdb_missing", Structs.database("diffdb_missing"))),
                values::of);
        differential.compare(
                "alter_database",
                "null database",
                done((client, peer) -> client.alter_database("diffdb_alter", null)),
                values::of);
        differential.compare(
                "alter_database_req",
                "new parameters",
                done((client, peer) -> {
                    Database changed = client.get_database("diffdb_alter");
                    changed.setParameters(new HashMap<>(Map.of("by", "req")));
                    client.alter_database_req(new AlterDatabaseRequest("diffdb_alter", changed));
                }),
                values::of);
        differential.compare(
                "get_database",
                "diffdb_alter after alter_database_req",
                (client, peer) -> client.get_database("diffdb_alter"),
                values::of);
        differential.compare(
                "alter_database_req",
                "missing database",
                done((client, peer) -> client.alter_database_req(
                        new AlterDatabaseRequest("diffdb_missing", Structs.database("diffdb_missing")))),
                values::of);
        // A struct with only some fields set (KnownHiveDivergences): last, on a database of its own.
        differential.compare(
                "alter_database",
                "a partial struct without an owner",
                done((client, peer) -> {
                    Database changed = new Database();
                    changed.setDescription("partial");
                    changed.setParameters(new HashMap<>(Map.of("partial", "1")));
                    client.alter_database("diffdb_partial", changed);
                }),
                values::of);
        differential.compare(
                "get_database",
                "diffdb_partial after the partial alter",
                (client, peer) -> client.get_database("diffdb_partial"),
                values::of);
        differential.assertAgreed("alter");
    }

    @Test
    void drop() {
        for (String db : new String[] {"diffdb_drop", "diffdb_tables", "diffdb_functions", "diffdb_req"}) {
            differential.setUp("create_database " + db, (client, peer) -> {
                client.create_database(Structs.database(db));
                return null;
            });
        }
        differential.setUp("create_table diffdb_tables.t", (client, peer) -> {
            client.create_table(Structs.table("diffdb_tables", "t"));
            return null;
        });
        differential.setUp("create_function diffdb_functions.f", (client, peer) -> {
            client.create_function(new Function(
                    "f",
                    "diffdb_functions",
                    "com.example.F",
                    Structs.OWNER,
                    PrincipalType.USER,
                    0,
                    FunctionType.JAVA,
                    null));
            return null;
        });
        differential.compare(
                "drop_database",
                "empty",
                done((client, peer) -> client.drop_database("diffdb_drop", false, false)),
                values::of);
        differential.compare(
                "get_database", "dropped", (client, peer) -> client.get_database("diffdb_drop"), values::of);
        differential.compare(
                "drop_database",
                "missing",
                done((client, peer) -> client.drop_database("diffdb_drop", false, false)),
                values::of);
        differential.compare(
                "drop_database",
                "holding a table",
                done((client, peer) -> client.drop_database("diffdb_tables", false, false)),
                values::of);
        differential.compare(
                "drop_database",
                "holding a function",
                done((client, peer) -> client.drop_database("diffdb_functions", false, false)),
                values::of);
        differential.compare(
                "drop_database",
                "holding a table, cascade",
                done((client, peer) -> client.drop_database("diffdb_tables", false, true)),
                values::of);
        differential.compare(
                "get_all_tables",
                "of the dropped database",
                (client, peer) -> client.get_all_tables("diffdb_tables"),
                values::of);
        differential.compare(
                "drop_database",
                "holding a function, cascade",
                done((client, peer) -> client.drop_database("diffdb_functions", false, true)),
                values::of);
        differential.compare(
                "drop_database",
                "default",
                done((client, peer) -> client.drop_database("default", false, false)),
                values::of);
        differential.compare(
                "drop_database",
                "null name",
                done((client, peer) -> client.drop_database(null, false, false)),
                values::of);
        differential.compare(
                "drop_database_req",
                "missing, ignoreUnknownDb",
                done((client, peer) -> {
                    DropDatabaseRequest request = new DropDatabaseRequest("diffdb_missing", true, false, false);
                    request.setCatalogName("hive");
                    client.drop_database_req(request);
                }),
                values::of);
        differential.compare(
                "drop_database_req",
                "missing",
                done((client, peer) ->
                        client.drop_database_req(new DropDatabaseRequest("diffdb_missing", false, false, false))),
                values::of);
        differential.compare(
                "drop_database_req",
                "diffdb_req in hive",
                done((client, peer) -> {
                    DropDatabaseRequest request = new DropDatabaseRequest("diffdb_req", false, false, false);
                    request.setCatalogName("hive");
                    client.drop_database_req(request);
                }),
                values::of);
        differential.compare(
                "get_database",
                "dropped by drop_database_req",
                (client, peer) -> client.get_database("diffdb_req"),
                values::of);
        differential.assertAgreed("drop");
    }

    private static GetDatabaseRequest getRequest(String name, String catalog) {
        GetDatabaseRequest request = new GetDatabaseRequest();
        request.setName(name);
        if (catalog != null) {
            request.setCatalogName(catalog);
        }
        return request;
    }

    private static String shortened(String name) {
        return name.length() > 20 ? name.substring(0, 8) + "...(" + name.length() + " characters)" : name;
    }
}
