package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.ResourceType;
import org.apache.hadoop.hive.metastore.api.ResourceUri;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Hive 4.1's own HiveMetaStoreClient taking locks and managing functions against the server. */
class TestHiveClientLocksAndFunctions {
    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withLockTimeout(Duration.ofSeconds(30));

    private HiveMetaStoreClient client() throws Exception {
        return hms.hiveClient();
    }

    private static LockRequest request(LockType type, String agent) {
        LockRequest request = new LockRequest(List.of(TestHmsLocks.table(type, "db", "t")), "alice", "host");
        request.setAgentInfo(agent);
        return request;
    }

    @Test
    void locksThroughHivesClient() throws Exception {
        HiveMetaStoreClient one = client();
        HiveMetaStoreClient two = client();
        LockResponse read1 = one.lock(request(LockType.SHARED_READ, "reader-1"));
        LockResponse read2 = two.lock(request(LockType.SHARED_READ, "reader-2"));
        assertThat(List.of(read1.getState(), read2.getState())).containsOnly(LockState.ACQUIRED);
        LockResponse writer = two.lock(request(LockType.EXCLUSIVE, "writer"));
        assertThat(writer.getState()).isEqualTo(LockState.WAITING);

        ShowLocksRequest show = new ShowLocksRequest();
        show.setDbname("db");
        show.setTablename("t");
        assertThat(one.showLocks(show).getLocks())
                .extracting(ShowLocksResponseElement::getAgentInfo)
                .containsExactly("reader-1", "reader-2", "writer");

        one.heartbeat(0, read1.getLockid());
        one.unlock(read1.getLockid());
        assertThat(two.checkLock(writer.getLockid()).getState()).isEqualTo(LockState.WAITING);
        two.unlock(read2.getLockid());
        assertThat(two.checkLock(writer.getLockid()).getState()).isEqualTo(LockState.ACQUIRED);
        two.unlock(writer.getLockid());
        assertThatThrownBy(() -> one.checkLock(writer.getLockid())).isInstanceOf(NoSuchLockException.class);
        assertThat(one.showLocks(show).getLocks()).isEmpty();
    }

    @Test
    void functionsThroughHivesClient() throws Exception {
        HiveMetaStoreClient client = client();
        Database db = new Database();
        db.setName("db");
        client.createDatabase(db);
        Function function = new Function(
                "to_upper",
                "db",
                "com.example.Upper",
                "alice",
                PrincipalType.USER,
                0,
                FunctionType.JAVA,
                List.of(new ResourceUri(ResourceType.JAR, "file:///tmp/udf.jar")));
        client.createFunction(function);
        assertThat(client.getFunction("db", "to_upper").getClassName()).isEqualTo("com.example.Upper");
        assertThat(client.getFunctions("db", "to_*")).containsExactly("to_upper");
        assertThat(client.getAllFunctions().getFunctions())
                .extracting(Function::getFunctionName)
                .containsExactly("to_upper");

        Function altered = function.deepCopy();
        altered.setClassName("com.example.Upper2");
        client.alterFunction("db", "to_upper", altered);
        assertThat(client.getFunction("db", "to_upper").getClassName()).isEqualTo("com.example.Upper2");
        client.dropFunction("db", "to_upper");
        assertThatThrownBy(() -> client.getFunction("db", "to_upper")).isInstanceOf(NoSuchObjectException.class);
        client.dropDatabase("db");
    }
}
