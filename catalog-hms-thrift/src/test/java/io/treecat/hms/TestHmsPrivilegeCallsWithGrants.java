package io.treecat.hms;

import static io.treecat.hms.TestHmsPrivilegeCalls.bag;
import static io.treecat.hms.TestHmsPrivilegeCalls.mayPlan;
import static io.treecat.hms.TestHmsPrivilegeCalls.table;
import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.time.Clock;
import java.util.Set;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive's privilege and role calls with grants in force ({@link GrantsAuthorizer}, as with {@code auth.enabled}). The
 * HMS port runs its calls as the anonymous principal until it authenticates, so an admin here is {@code anonymous}
 * named in the admins, as {@code auth.admin-principals: [anonymous]} would: what a Hive client grants then decides
 * the one check every API passes.
 */
final class TestHmsPrivilegeCallsWithGrants {
    @RegisterExtension
    final HmsTestServer hms = HmsTestServer.withGrants(Set.of(Principal.ANONYMOUS.name(), "root"));

    private static final Principal ALICE = new Principal("alice");
    private static final Principal BOB = new Principal("bob");
    private static final ObjectPath ORDERS = ObjectPath.of("warehouse", "sales", "orders");

    @Test
    void aGrantMadeByHivesCallDecidesTheOneCheck() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        TestHmsPrivilegeCalls.salesOrders(client);
        GrantsAuthorizer authorizer = new GrantsAuthorizer(hms::catalog, Set.of("root"));
        assertThat(mayPlan(authorizer, ALICE, ORDERS)).isFalse();

        client.create_role(new Role("analysts", 0, null));
        client.grant_role("analysts", "alice", PrincipalType.USER, "x", PrincipalType.USER, false);
        client.grant_privileges(bag(table("sales", "orders"), "analysts", PrincipalType.ROLE, "SELECT"));

        // The one check an Iceberg REST load or plan passes: alice reads through the role, bob does not.
        assertThat(mayPlan(authorizer, ALICE, ORDERS)).isTrue();
        assertThat(mayPlan(authorizer, BOB, ORDERS)).isFalse();
        assertThat(authorizer.allows(ALICE, Privilege.TABLE_WRITE, ORDERS)).isFalse();
        // What treecat who-can reads.
        Grants grants = new Grants(new TransactionRunner(hms::catalog, authorizer), Clock.systemUTC());
        assertThat(grants.whoCan(new Principal("root"), ORDERS, ReadPoint.LATEST, Set.of()))
                .contains(new Grants.Holder("alice", Privilege.TABLE_READ_DATA, ORDERS, "analysts"));

        client.revoke_privileges(bag(table("sales", "orders"), "analysts", PrincipalType.ROLE, "select"), false);
        assertThat(mayPlan(authorizer, ALICE, ORDERS)).isFalse();
    }
}
