package io.treecat.hms;

import static io.treecat.hms.TestHmsLocks.beat;
import static io.treecat.hms.TestHmsLocks.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.GetFunctionsRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.ResourceType;
import org.apache.hadoop.hive.metastore.api.ResourceUri;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Locks and functions over loopback Thrift, with Hive's generated client, on a real RocksDB tree. */
class TestHmsLocksAndFunctions {
    private static final Duration LOCK_TIMEOUT = Duration.ofMillis(1500);

    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withLockTimeout(LOCK_TIMEOUT);

    private ThriftHiveMetastore.Client client() throws Exception {
        return hms.client();
    }

    private static LockRequest exclusive(String db, String tableName, String agent) {
        LockRequest request = new LockRequest(List.of(table(LockType.EXCLUSIVE, db, tableName)), "alice", "host");
        request.setAgentInfo(agent);
        return request;
    }

    @Test
    void locksExcludeAcrossConnectionsAndExpireWithoutHeartbeats() throws Exception {
        ThriftHiveMetastore.Client one = client();
        ThriftHiveMetastore.Client two = client();
        LockResponse first = one.lock(exclusive("db", "t", "Iceberg-one"));
        assertThat(first.getState()).isEqualTo(LockState.ACQUIRED);
        LockResponse second = two.lock(exclusive("db", "t", "Iceberg-two"));
        assertThat(second.getState()).isEqualTo(LockState.WAITING);

        // Iceberg's HiveCatalog finds its lock by agentInfo in show_locks for the table.
        ShowLocksRequest show = new ShowLocksRequest();
        show.setDbname("db");
        show.setTablename("t");
        assertThat(two.show_locks(show).getLocks())
                .extracting(
                        ShowLocksResponseElement::getAgentInfo,
                        ShowLocksResponseElement::getLockid,
                        ShowLocksResponseElement::getState)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("Iceberg-one", first.getLockid(), LockState.ACQUIRED),
                        org.assertj.core.groups.Tuple.tuple("Iceberg-two", second.getLockid(), LockState.WAITING));

        one.unlock(new UnlockRequest(first.getLockid()));
        assertThat(two.check_lock(new CheckLockRequest(second.getLockid())).getState())
                .isEqualTo(LockState.ACQUIRED);

        // The holder keeps its lock by heartbeating (as Iceberg does, with txnid 0) past the timeout.
        LockResponse third = one.lock(exclusive("db", "t", "Iceberg-three"));
        assertThat(third.getState()).isEqualTo(LockState.WAITING);
        long end = System.nanoTime() + 2 * LOCK_TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            two.heartbeat(beat(second.getLockid(), 0));
            assertThat(one.check_lock(new CheckLockRequest(third.getLockid())).getState())
                    .isEqualTo(LockState.WAITING);
            TimeUnit.MILLISECONDS.sleep(LOCK_TIMEOUT.toMillis() / 5);
        }
        // Then it goes silent: its lock expires and the waiter (which keeps checking) gets it.
        long deadline = System.nanoTime() + 4 * LOCK_TIMEOUT.toNanos();
        LockState state = LockState.WAITING;
        while (state == LockState.WAITING && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(LOCK_TIMEOUT.toMillis() / 5);
            state = one.check_lock(new CheckLockRequest(third.getLockid())).getState();
        }
        assertThat(state).isEqualTo(LockState.ACQUIRED);
        assertThatThrownBy(() -> two.heartbeat(beat(second.getLockid(), 0)))
                .isInstanceOf(NoSuchLockException.class)
                .hasMessageStartingWith("No such lock lockid:" + second.getLockid());

        // Hive transactions are not served: a txnid heartbeat is NoSuchTxnException, open_txns is an unknown call.
        assertThatThrownBy(() -> one.heartbeat(beat(0, 42)))
                .isInstanceOf(NoSuchTxnException.class)
                .hasMessageStartingWith("No such transaction txnid:42");
        assertThatThrownBy(() ->
                        one.open_txns(new org.apache.hadoop.hive.metastore.api.OpenTxnRequest(1, "alice", "host")))
                .isInstanceOfSatisfying(
                        TApplicationException.class,
                        e -> assertThat(e.getType()).isEqualTo(TApplicationException.UNKNOWN_METHOD));
        assertThat(one.get_all_databases()).containsExactly("default"); // connection still usable
        assertThat(TreeCatHmsServer.servedCalls())
                .contains("lock", "check_lock", "unlock", "heartbeat", "show_locks")
                .doesNotContain("open_txns", "commit_txn");
    }

    private static Function function(String db, String name, String className) {
        Function function = new Function(
                name,
                db,
                className,
                "alice",
                PrincipalType.USER,
                0,
                FunctionType.JAVA,
                new ArrayList<>(List.of(new ResourceUri(ResourceType.JAR, "file:///tmp/udf.jar"))));
        return function;
    }

    @Test
    void functionsRoundTripAndFailAsHiveDoes() throws Exception {
        ThriftHiveMetastore.Client client = client();
        Database db = new Database();
        db.setName("db");
        client.create_database(db);
        client.create_table(tableNamed("db", "t"));

        client.create_function(function("db", "Upper2", "com.example.Upper"));
        client.create_function(function("@hive#db", "lower2", "com.example.Lower"));
        Function read = client.get_function("DB", "upper2");
        assertThat(read.getFunctionName()).isEqualTo("upper2");
        assertThat(read.getDbName()).isEqualTo("db");
        assertThat(read.getClassName()).isEqualTo("com.example.Upper");
        assertThat(read.getOwnerName()).isEqualTo("alice");
        assertThat(read.getFunctionType()).isEqualTo(FunctionType.JAVA);
        assertThat(read.getResourceUris()).containsExactly(new ResourceUri(ResourceType.JAR, "file:///tmp/udf.jar"));
        assertThat(read.getCreateTime()).isPositive();
        assertThat(read.getCatName()).isEqualTo("hive");

        assertThat(client.get_functions("db", "*")).containsExactly("lower2", "upper2");
        assertThat(client.get_functions("db", "up*")).containsExactly("upper2");
        assertThat(client.get_functions("missing", "*")).isEmpty();
        GetFunctionsRequest request = new GetFunctionsRequest("db");
        request.setPattern("low*");
        request.setReturnNames(false); // the IDL's default is true
        assertThat(client.get_functions_req(request).getFunctions())
                .extracting(Function::getClassName)
                .containsExactly("com.example.Lower");
        request.setReturnNames(true);
        assertThat(client.get_functions_req(request).getFunction_names()).containsExactly("lower2");
        // Functions never show up as tables.
        assertThat(client.get_all_tables("db")).containsExactly("t");

        assertThatThrownBy(() -> client.create_function(function("db", "upper2", "com.example.Other")))
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessage("Function upper2 already exists");
        assertThatThrownBy(() -> client.create_function(function("missing", "f", "com.example.F")))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("Database missing does not exist");
        assertThatThrownBy(() -> client.create_function(function("db", "bad-name", "com.example.F")))
                .isInstanceOf(InvalidObjectException.class)
                .hasMessageStartingWith("Invalid function name: 'bad-name'");
        assertThatThrownBy(() -> client.get_function("db", "nope"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("Function db.nope does not exist");
        assertThatThrownBy(() -> client.drop_function("db", "nope"))
                .isInstanceOf(NoSuchObjectException.class)
                .hasMessage("Function db.nope does not exist");
        assertThatThrownBy(() -> client.alter_function("db", "nope", function("db", "nope", "com.example.F")))
                .isInstanceOf(MetaException.class)
                .hasMessage("function nope doesn't exist");

        // Alter in place, then rename onto a taken name (refused) and onto a free one.
        client.alter_function("db", "upper2", function("db", "upper2", "com.example.Upper3"));
        assertThat(client.get_function("db", "upper2").getClassName()).isEqualTo("com.example.Upper3");
        assertThat(client.get_function("db", "upper2").getCreateTime()).isEqualTo(read.getCreateTime());
        assertThatThrownBy(() -> client.alter_function("db", "upper2", function("db", "lower2", "com.example.X")))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessage("Function db.lower2 already exists");
        client.alter_function("db", "upper2", function("db", "upper3", "com.example.Upper3"));
        assertThat(client.get_functions("db", "*")).containsExactly("lower2", "upper3");
        assertThat(client.get_all_functions().getFunctions())
                .extracting(Function::getFunctionName)
                .containsExactly("lower2", "upper3");

        // A database holding functions is not empty; dropping the last function empties it again.
        client.drop_table("db", "t", false);
        assertThatThrownBy(() -> client.drop_database("db", false, false))
                .isInstanceOf(InvalidOperationException.class);
        client.drop_function("db", "upper3");
        client.drop_function("@hive#db", "LOWER2");
        assertThat(client.get_all_functions().getFunctions()).isEmpty();
        client.drop_database("db", false, false);

        // With cascade, a database's functions go with it.
        client.create_database(db);
        client.create_function(function("db", "f", "com.example.F"));
        client.drop_database("db", false, true);
        client.create_database(db);
        assertThat(client.get_functions("db", "*")).isEmpty();
        assertThat(client.get_all_functions().getFunctions()).isEmpty();
    }

    private static org.apache.hadoop.hive.metastore.api.Table tableNamed(String db, String name) {
        org.apache.hadoop.hive.metastore.api.Table table = new org.apache.hadoop.hive.metastore.api.Table();
        table.setDbName(db);
        table.setTableName(name);
        table.setTableType("MANAGED_TABLE");
        table.setParameters(new java.util.HashMap<>());
        return table;
    }
}
