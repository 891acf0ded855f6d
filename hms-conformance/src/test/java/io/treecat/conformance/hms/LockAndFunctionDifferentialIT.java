package io.treecat.conformance.hms;

import static io.treecat.conformance.hms.Differential.done;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.ResourceType;
import org.apache.hadoop.hive.metastore.api.ResourceUri;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks without transactions (what Iceberg's HiveCatalog and {@code DbLockManager} clients send) and permanent
 * functions, against Hive 4.0.1 and TreeCat. Lock ids differ by design (Hive counts from 1, TreeCat draws them from its
 * start time), so each side's ids are compared by the order they were handed out in ({@code lock#1}, ...); times and
 * host names become placeholders. Databases {@code difflock} and {@code difffn}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "lock",
    "check_lock",
    "unlock",
    "heartbeat",
    "show_locks",
    "create_function",
    "get_function",
    "drop_function",
    "alter_function",
    "get_functions",
    "get_all_functions"
})
class LockAndFunctionDifferentialIT {
    private static final String LOCKS = "difflock";
    private static final String FUNCTIONS = "difffn";

    private static Differential differential;
    private static HmsValues values;
    /** Per side (by peer name): each lock id, and its ordinal in the order the side handed it out. */
    private static final Map<String, Map<Long, Integer>> LOCK_IDS = new HashMap<>();

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        values = peers.values();
        for (String db : List.of(LOCKS, FUNCTIONS)) {
            differential.setUp("create_database " + db, (client, peer) -> {
                client.create_database(Structs.database(db));
                return null;
            });
        }
        differential.setUp("create_table difflock.t", (client, peer) -> {
            client.create_table(Structs.table(LOCKS, "t", "ds string"));
            return null;
        });
    }

    private static <T> void compare(String call, String description, Differential.Call<T> both) {
        differential.compare(call, description, both, values::of);
    }

    private static String lockName(MetastorePeer peer, long id) {
        Map<Long, Integer> ids = LOCK_IDS.computeIfAbsent(peer.name(), key -> new HashMap<>());
        return "lock#" + ids.computeIfAbsent(id, key -> ids.size() + 1);
    }

    /** The id the side handed out as its {@code ordinal}-th lock. */
    private static long lockId(MetastorePeer peer, int ordinal) {
        return LOCK_IDS.getOrDefault(peer.name(), Map.of()).entrySet().stream()
                .filter(entry -> entry.getValue() == ordinal)
                .mapToLong(Map.Entry::getKey)
                .findFirst()
                .orElse(-1);
    }

    private static Map<String, Object> response(LockResponse response, MetastorePeer peer) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockid", lockName(peer, response.getLockid()));
        out.put("state", response.getState().toString());
        out.put("errorMessage", response.getErrorMessage());
        return out;
    }

    private static List<Object> shown(ShowLocksResponse response, MetastorePeer peer) {
        List<Object> out = new ArrayList<>();
        for (ShowLocksResponseElement element : response.getLocks()) {
            ShowLocksResponseElement copy = element.deepCopy();
            copy.setLockid(0);
            copy.setHostname(element.isSetHostname() ? "<host>" : null);
            Map<String, Object> shown = new LinkedHashMap<>();
            shown.put("lock", lockName(peer, element.getLockid()));
            if (element.isSetBlockedByExtId()) {
                shown.put("blockedBy", lockName(peer, element.getBlockedByExtId()));
                copy.setBlockedByExtId(0);
            }
            copy.setLastheartbeat(element.getLastheartbeat() == 0 ? 0 : 1);
            copy.setAcquiredat(element.getAcquiredat() == 0 ? 0 : 1);
            shown.put("element", copy);
            out.add(shown);
        }
        // Hive answers in an order of its own (waiting first); the lock order is what says something.
        out.sort(Comparator.comparing(shown -> String.valueOf(((Map<?, ?>) shown).get("lock"))));
        return out;
    }

    private static LockRequest request(LockType type, LockLevel level, String table, String partition) {
        LockComponent component = new LockComponent(type, level, LOCKS);
        if (table != null) {
            component.setTablename(table);
        }
        if (partition != null) {
            component.setPartitionname(partition);
        }
        component.setOperationType(DataOperationType.NO_TXN);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "differential", "localhost");
        request.setAgentInfo("LockAndFunctionDifferentialIT");
        return request;
    }

    private static ShowLocksRequest showLocks() {
        ShowLocksRequest request = new ShowLocksRequest();
        request.setDbname(LOCKS);
        return request;
    }

    @Test
    void locks() {
        compare(
                "lock",
                "shared read on the table",
                (client, peer) ->
                        response(client.lock(request(LockType.SHARED_READ, LockLevel.TABLE, "t", null)), peer));
        compare(
                "lock",
                "exclusive on the table, behind it",
                (client, peer) -> response(client.lock(request(LockType.EXCLUSIVE, LockLevel.TABLE, "t", null)), peer));
        compare(
                "lock",
                "shared read on a partition",
                (client, peer) ->
                        response(client.lock(request(LockType.SHARED_READ, LockLevel.PARTITION, "t", "ds=a")), peer));
        compare("show_locks", "the three", (client, peer) -> shown(client.show_locks(showLocks()), peer));
        compare(
                "check_lock",
                "the waiting exclusive",
                (client, peer) -> response(client.check_lock(new CheckLockRequest(lockId(peer, 2))), peer));
        compare("heartbeat", "the shared read", done((client, peer) -> {
            HeartbeatRequest request = new HeartbeatRequest();
            request.setLockid(lockId(peer, 1));
            client.heartbeat(request);
        }));
        compare("unlock", "the shared read", done((client, peer) -> client.unlock(new UnlockRequest(lockId(peer, 1)))));
        compare(
                "unlock",
                "the partition's shared read",
                done((client, peer) -> client.unlock(new UnlockRequest(lockId(peer, 3)))));
        compare(
                "check_lock",
                "the exclusive, now free",
                (client, peer) -> response(client.check_lock(new CheckLockRequest(lockId(peer, 2))), peer));
        compare("show_locks", "the exclusive alone", (client, peer) -> shown(client.show_locks(showLocks()), peer));
        compare("unlock", "the exclusive", done((client, peer) -> client.unlock(new UnlockRequest(lockId(peer, 2)))));
        compare(
                "unlock",
                "the exclusive again",
                done((client, peer) -> client.unlock(new UnlockRequest(lockId(peer, 2)))));
        compare(
                "check_lock",
                "a released lock",
                (client, peer) -> response(client.check_lock(new CheckLockRequest(lockId(peer, 2))), peer));
        compare("heartbeat", "a released lock", done((client, peer) -> {
            HeartbeatRequest request = new HeartbeatRequest();
            request.setLockid(lockId(peer, 2));
            client.heartbeat(request);
        }));
        compare(
                "heartbeat",
                "no lock, no transaction",
                done((client, peer) -> client.heartbeat(new HeartbeatRequest())));
        compare(
                "lock",
                "exclusive on the database",
                (client, peer) -> response(client.lock(request(LockType.EXCLUSIVE, LockLevel.DB, null, null)), peer));
        compare("show_locks", "the database lock", (client, peer) -> shown(client.show_locks(showLocks()), peer));
        compare(
                "unlock",
                "the database lock",
                done((client, peer) -> client.unlock(new UnlockRequest(lockId(peer, 4)))));
        compare("lock", "in a transaction that does not exist", (client, peer) -> {
            LockRequest request = request(LockType.SHARED_READ, LockLevel.TABLE, "t", null);
            request.setTxnid(123456789L);
            return response(client.lock(request), peer);
        });
        compare("show_locks", "none left", (client, peer) -> shown(client.show_locks(showLocks()), peer));
        differential.assertAgreed("locks");
    }

    private static Function function(String name, String className) {
        Function function = new Function(
                name,
                FUNCTIONS,
                className,
                Structs.OWNER,
                PrincipalType.USER,
                0,
                FunctionType.JAVA,
                new ArrayList<>(List.of(new ResourceUri(ResourceType.JAR, "file:/opt/udf.jar"))));
        return function;
    }

    @Test
    void functions() {
        compare(
                "create_function",
                "upper",
                done((client, peer) -> client.create_function(function("upper", "com.example.Upper"))));
        compare(
                "create_function",
                "Lower (mixed case)",
                done((client, peer) -> client.create_function(function("Lower", "com.example.Lower"))));
        compare("get_function", "upper", (client, peer) -> client.get_function(FUNCTIONS, "upper"));
        compare("get_function", "LOWER", (client, peer) -> client.get_function(FUNCTIONS, "LOWER"));
        compare(
                "create_function",
                "upper again",
                done((client, peer) -> client.create_function(function("upper", "com.example.Other"))));
        compare("create_function", "in a missing database", done((client, peer) -> {
            Function function = function("f", "com.example.F");
            function.setDbName("difffn_missing");
            client.create_function(function);
        }));
        compare(
                "create_function",
                "a bad name",
                done((client, peer) -> client.create_function(function("bad-name", "com.example.F"))));
        compare(
                "create_function",
                "no class name",
                done((client, peer) -> client.create_function(function("noclass", null))));
        compare("get_function", "missing", (client, peer) -> client.get_function(FUNCTIONS, "missing"));
        compare(
                "get_function",
                "in a missing database",
                (client, peer) -> client.get_function("difffn_missing", "upper"));
        for (String pattern : new String[] {"*", "up*", "UP*", "upper|lower", "nothing*", ""}) {
            compare("get_functions", "'" + pattern + "'", (client, peer) -> client.get_functions(FUNCTIONS, pattern));
        }
        compare("get_functions", "missing database", (client, peer) -> client.get_functions("difffn_missing", "*"));
        compare("get_all_functions", "every function", (client, peer) -> client.get_all_functions());
        compare("alter_function", "a new class", done((client, peer) -> {
            Function changed = client.get_function(FUNCTIONS, "upper");
            changed.setClassName("com.example.Upper2");
            client.alter_function(FUNCTIONS, "upper", changed);
        }));
        compare("get_function", "upper after the alter", (client, peer) -> client.get_function(FUNCTIONS, "upper"));
        compare("alter_function", "a new name", done((client, peer) -> {
            Function changed = client.get_function(FUNCTIONS, "lower");
            changed.setFunctionName("lower2");
            client.alter_function(FUNCTIONS, "lower", changed);
        }));
        compare("get_function", "lower2", (client, peer) -> client.get_function(FUNCTIONS, "lower2"));
        compare(
                "alter_function",
                "missing",
                done((client, peer) ->
                        client.alter_function(FUNCTIONS, "missing", function("missing", "com.example.M"))));
        compare("drop_function", "upper", done((client, peer) -> client.drop_function(FUNCTIONS, "upper")));
        compare("drop_function", "upper again", done((client, peer) -> client.drop_function(FUNCTIONS, "upper")));
        compare(
                "drop_function",
                "in a missing database",
                done((client, peer) -> client.drop_function("difffn_missing", "upper")));
        compare("get_functions", "at the end", (client, peer) -> client.get_functions(FUNCTIONS, "*"));
        differential.assertAgreed("functions");
    }
}
