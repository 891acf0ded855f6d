package io.treecat.conformance.hive3;

import static io.treecat.conformance.hive3.Hive3Metastore.database;
import static io.treecat.conformance.hive3.Hive3Metastore.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.GetPrincipalsInRoleRequest;
import org.apache.hadoop.hive.metastore.api.GetRoleGrantsForPrincipalRequest;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.HiveObjectType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeBag;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.RolePrincipalGrant;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive 3.1's client on Hive's privilege and role calls (TreeCat's grants, docs/security.md "Hive's privilege and role
 * calls"): its {@code grant_role}, {@code revoke_role}, {@code grant_privileges} and {@code revoke_privileges} send the
 * {@code grant_revoke_*} requests of Hive 3.1's IDL; the reads and the older forms go as Hive 3.1's generated client
 * sends them.
 */
class Hive3PrivilegeCallsIT {
    @RegisterExtension
    static final Hive3Metastore hms = new Hive3Metastore();

    private static HiveMetaStoreClient client;
    private static ThriftHiveMetastore.Client raw;

    @BeforeAll
    static void clients() throws Exception {
        client = hms.client();
        raw = hms.thrift();
        client.createDatabase(database("h3_priv"));
        client.createTable(table("h3_priv", "orders", TableType.EXTERNAL_TABLE));
    }

    private static HiveObjectRef orders() {
        HiveObjectRef object = new HiveObjectRef(HiveObjectType.TABLE, "h3_priv", "orders", null, null);
        object.setCatName("hive");
        return object;
    }

    private static PrivilegeBag bag(String principal, PrincipalType type, String privilege) {
        PrivilegeBag bag = new PrivilegeBag();
        bag.addToPrivileges(new HiveObjectPrivilege(
                orders(),
                principal,
                type,
                new PrivilegeGrantInfo(privilege, 0, "h3", PrincipalType.USER, false),
                "hive"));
        return bag;
    }

    @Test
    void rolesAndGrantsRoundTrip() throws Exception {
        assertThat(client.create_role(new Role("h3_analysts", 0, "h3"))).isTrue();
        assertThat(client.listRoleNames()).contains("admin", "h3_analysts", "public");
        assertThat(client.grant_role("h3_analysts", "h3_alice", PrincipalType.USER, "h3", PrincipalType.USER, false))
                .isTrue();
        assertThat(client.list_roles("h3_alice", PrincipalType.USER))
                .extracting(Role::getRoleName)
                .containsExactly("h3_analysts", "public");
        assertThat(raw.get_principals_in_role(new GetPrincipalsInRoleRequest("h3_analysts"))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getPrincipalName)
                .containsExactly("h3_alice");
        assertThat(raw.get_role_grants_for_principal(
                                new GetRoleGrantsForPrincipalRequest("h3_alice", PrincipalType.USER))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getRoleName)
                .containsExactly("h3_analysts", "public");

        assertThat(client.grant_privileges(bag("h3_analysts", PrincipalType.ROLE, "SELECT")))
                .isTrue();
        assertThat(client.grant_privileges(bag("h3_bob", PrincipalType.USER, "INSERT")))
                .isTrue();
        assertThat(client.list_privileges(null, null, orders()))
                .extracting(p -> p.getPrincipalName() + " " + p.getGrantInfo().getPrivilege())
                .containsExactly("h3_bob INSERT", "h3_bob UPDATE", "h3_bob DELETE", "h3_analysts SELECT");
        assertThat(client.get_privilege_set(orders(), "h3_alice", List.of())
                        .getRolePrivileges()
                        .get("h3_analysts"))
                .extracting(PrivilegeGrantInfo::getPrivilege)
                .containsExactly("SELECT");
        assertThatThrownBy(() -> client.grant_privileges(bag("h3_bob", PrincipalType.USER, "FOO")))
                .isInstanceOf(MetaException.class)
                .hasMessageContaining("Unknown privilege FOO");

        assertThat(client.revoke_privileges(bag("h3_analysts", PrincipalType.ROLE, "SELECT"), false))
                .isTrue();
        assertThat(raw.revoke_privileges(bag("h3_bob", PrincipalType.USER, "UPDATE")))
                .isTrue();
        assertThat(client.list_privileges(null, null, orders())).isEmpty();
        assertThat(client.revoke_role("h3_analysts", "h3_alice", PrincipalType.USER, false))
                .isTrue();
        assertThat(raw.drop_role("h3_analysts")).isTrue();
        assertThat(client.listRoleNames()).doesNotContain("h3_analysts");
    }
}
