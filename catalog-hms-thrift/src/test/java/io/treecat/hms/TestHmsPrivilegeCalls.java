package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.auth.Privilege;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Catalog;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetPrincipalsInRoleRequest;
import org.apache.hadoop.hive.metastore.api.GetRoleGrantsForPrincipalRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokePrivilegeRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokeRoleRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokeType;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.HiveObjectType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PrincipalPrivilegeSet;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeBag;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.RolePrincipalGrant;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hive's privilege and role calls on TreeCat's grants (docs/security.md, "Hive's privilege and role calls"), through
 * Hive 4.1's own {@code HiveMetaStoreClient} (which sends Hive 4's {@code grant_revoke_*} forms) and the generated
 * client (the older forms Trino and Hive 3 send). Auth off here: the calls are management calls that always pass;
 * {@code TestHmsPrivilegeCallsWithGrants} runs them with grants in force.
 */
final class TestHmsPrivilegeCalls {
    @RegisterExtension
    final HmsTestServer hms = new HmsTestServer();

    static final Principal ADMIN = new Principal("admin-user");

    private Grants grants() {
        return new Grants(new TransactionRunner(hms::catalog, Authorizer.allowAll()), Clock.systemUTC());
    }

    static void salesOrders(HiveMetaStoreClient client) throws Exception {
        Database db = new Database();
        db.setName("sales");
        client.createDatabase(db);
        Table table = new Table();
        table.setDbName("sales");
        table.setTableName("orders");
        table.setTableType("EXTERNAL_TABLE");
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("id", "bigint", null)));
        sd.setSerdeInfo(new SerDeInfo("s", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", new HashMap<>()));
        table.setSd(sd);
        table.setPartitionKeys(List.of());
        client.createTable(table);
    }

    static HiveObjectRef table(String db, String name) {
        HiveObjectRef object = new HiveObjectRef(HiveObjectType.TABLE, db, name, null, null);
        object.setCatName("hive");
        return object;
    }

    static HiveObjectRef database(String db) {
        HiveObjectRef object = new HiveObjectRef(HiveObjectType.DATABASE, db, null, null, null);
        object.setCatName("hive");
        return object;
    }

    static HiveObjectRef global() {
        return new HiveObjectRef(HiveObjectType.GLOBAL, null, null, null, null);
    }

    static PrivilegeBag bag(HiveObjectRef object, String principal, PrincipalType type, String... privileges) {
        PrivilegeBag bag = new PrivilegeBag();
        for (String privilege : privileges) {
            bag.addToPrivileges(new HiveObjectPrivilege(
                    object,
                    principal,
                    type,
                    new PrivilegeGrantInfo(privilege, 0, "hiveuser", PrincipalType.USER, false),
                    "hive"));
        }
        return bag;
    }

    private static List<String> rows(List<HiveObjectPrivilege> privileges) {
        return privileges.stream()
                .map(p -> p.getHiveObject().getObjectType() + " "
                        + p.getHiveObject().getDbName() + "."
                        + p.getHiveObject().getObjectName() + " "
                        + p.getPrincipalType() + " " + p.getPrincipalName() + " "
                        + p.getGrantInfo().getPrivilege())
                .toList();
    }

    @Test
    void rolesRoundTripThroughHivesClientAndShowInTreeCatsRoles() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        assertThat(client.listRoleNames()).containsExactly("admin", "public");
        assertThat(client.create_role(new Role("analysts", 0, "someone"))).isTrue();
        assertThat(client.listRoleNames()).containsExactly("admin", "analysts", "public");
        // grant_role and revoke_role of Hive 4's client send grant_revoke_role.
        assertThat(client.grant_role("analysts", "alice", PrincipalType.USER, "hiveuser", PrincipalType.USER, false))
                .isTrue();
        assertThat(grants().listRoles(ADMIN, ReadPoint.LATEST)).singleElement().satisfies(role -> {
            assertThat(role.name()).isEqualTo("analysts");
            assertThat(role.members()).containsExactly("alice");
        });
        assertThat(client.list_roles("alice", PrincipalType.USER))
                .extracting(Role::getRoleName)
                .containsExactly("analysts", "public");
        assertThat(client.get_principals_in_role(new GetPrincipalsInRoleRequest("analysts"))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getPrincipalName, RolePrincipalGrant::getPrincipalType)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("alice", PrincipalType.USER));
        assertThat(client.get_role_grants_for_principal(
                                new GetRoleGrantsForPrincipalRequest("alice", PrincipalType.USER))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getRoleName)
                .containsExactly("analysts", "public");
        assertThat(client.revoke_role("analysts", "alice", PrincipalType.USER, false))
                .isTrue();
        assertThat(grants().listRoles(ADMIN, ReadPoint.LATEST).get(0).members()).isEmpty();
        assertThat(client.drop_role("analysts")).isTrue();
        assertThat(client.listRoleNames()).containsExactly("admin", "public");

        // The older forms, as Trino and Hive 3 send them.
        ThriftHiveMetastore.Client raw = hms.client();
        assertThat(raw.create_role(new Role("etl", 0, null))).isTrue();
        assertThat(raw.grant_role("etl", "bob", PrincipalType.USER, "x", PrincipalType.USER, false))
                .isTrue();
        assertThat(raw.get_role_names()).containsExactly("admin", "etl", "public");
        assertThat(raw.revoke_role("etl", "bob", PrincipalType.USER)).isTrue();
        assertThat(raw.drop_role("etl")).isTrue();
    }

    @Test
    void hivesAdminRoleIsAllOnTheRoot() throws Exception {
        ThriftHiveMetastore.Client raw = hms.client();
        assertThat(raw.grant_role("admin", "carol", PrincipalType.USER, "x", PrincipalType.USER, false))
                .isTrue();
        assertThat(grants().list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST))
                .containsExactly(
                        new Grants.GrantInfo(Grants.Grantee.principal("carol"), Privilege.ALL, ObjectPath.ROOT));
        assertThat(raw.get_principals_in_role(new GetPrincipalsInRoleRequest("admin"))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getPrincipalName)
                .containsExactly("carol");
        assertThat(raw.get_role_grants_for_principal(new GetRoleGrantsForPrincipalRequest("carol", PrincipalType.USER))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getRoleName)
                .containsExactly("admin", "public");
        assertThat(raw.list_privileges("carol", PrincipalType.USER, global()))
                .extracting(p -> p.getGrantInfo().getPrivilege())
                .containsExactly("ALL");
        assertThatThrownBy(() -> raw.grant_role("admin", "carol", PrincipalType.USER, "x", PrincipalType.USER, false))
                .isInstanceOf(MetaException.class)
                .hasMessage("Principal carol already has the role admin");
        assertThat(raw.revoke_role("admin", "carol", PrincipalType.USER)).isTrue();
        assertThat(grants().list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST)).isEmpty();

        // To a role: ALL on / for that TreeCat role.
        raw.create_role(new Role("ops", 0, null));
        assertThat(raw.grant_role("admin", "ops", PrincipalType.ROLE, "x", PrincipalType.USER, false))
                .isTrue();
        assertThat(grants().list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST))
                .containsExactly(new Grants.GrantInfo(Grants.Grantee.role("ops"), Privilege.ALL, ObjectPath.ROOT));
        assertThat(raw.get_principals_in_role(new GetPrincipalsInRoleRequest("admin"))
                        .getPrincipalGrants())
                .extracting(RolePrincipalGrant::getPrincipalName, RolePrincipalGrant::getPrincipalType)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("ops", PrincipalType.ROLE));
        assertThat(raw.revoke_role("admin", "ops", PrincipalType.ROLE)).isTrue();
        assertThat(grants().list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST)).isEmpty();
    }

    @Test
    void privilegesRoundTripAndMapOntoTreeCatsPrivileges() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        salesOrders(client);
        client.create_role(new Role("analysts", 0, null));
        ObjectPath orders = ObjectPath.of("warehouse", "sales", "orders");
        ObjectPath sales = ObjectPath.of("warehouse", "sales");

        // Hive 4's client sends grant_revoke_privileges.
        assertThat(client.grant_privileges(bag(table("sales", "orders"), "analysts", PrincipalType.ROLE, "select")))
                .isTrue();
        ThriftHiveMetastore.Client raw = hms.client();
        assertThat(raw.grant_privileges(bag(table("sales", "orders"), "alice", PrincipalType.USER, "INSERT")))
                .isTrue();
        assertThat(raw.grant_privileges(bag(database("sales"), "alice", PrincipalType.USER, "SELECT")))
                .isTrue();
        assertThat(raw.grant_privileges(bag(global(), "bob", PrincipalType.USER, "ALL")))
                .isTrue();

        // What treecat grants list reads.
        assertThat(grants().list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST))
                .containsExactly(
                        new Grants.GrantInfo(Grants.Grantee.principal("bob"), Privilege.ALL, ObjectPath.ROOT),
                        new Grants.GrantInfo(Grants.Grantee.principal("alice"), Privilege.TABLE_READ_DATA, sales),
                        new Grants.GrantInfo(Grants.Grantee.principal("alice"), Privilege.TABLE_WRITE, orders),
                        new Grants.GrantInfo(Grants.Grantee.role("analysts"), Privilege.TABLE_READ_DATA, orders));

        // Back as Hive names: exactly the object's grants, TABLE_WRITE as its three names.
        assertThat(rows(raw.list_privileges(null, null, table("sales", "orders"))))
                .containsExactly(
                        "TABLE sales.orders USER alice INSERT",
                        "TABLE sales.orders USER alice UPDATE",
                        "TABLE sales.orders USER alice DELETE",
                        "TABLE sales.orders ROLE analysts SELECT");
        assertThat(rows(client.list_privileges("analysts", PrincipalType.ROLE, table("sales", "orders"))))
                .containsExactly("TABLE sales.orders ROLE analysts SELECT");
        assertThat(rows(raw.list_privileges("alice", PrincipalType.USER, database("sales"))))
                .containsExactly("DATABASE sales.null USER alice SELECT");
        assertThat(rows(raw.list_privileges("alice", PrincipalType.USER, new HiveObjectRef())))
                .containsExactly(
                        "DATABASE sales.null USER alice SELECT",
                        "TABLE sales.orders USER alice INSERT",
                        "TABLE sales.orders USER alice UPDATE",
                        "TABLE sales.orders USER alice DELETE");
        HiveObjectPrivilege one = raw.list_privileges("analysts", PrincipalType.ROLE, table("sales", "orders"))
                .get(0);
        assertThat(one.getHiveObject().getCatName()).isEqualTo("hive");
        assertThat(one.getGrantInfo().isGrantOption()).isFalse();
        assertThat(one.getGrantInfo().getCreateTime()).isPositive();
        assertThat(one.getGrantInfo().getGrantorType()).isEqualTo(PrincipalType.USER);
        assertThat(one.getAuthorizer()).isEqualTo("treecat");

        // get_privilege_set: the user's own and its roles' grants on exactly that object.
        client.grant_role("analysts", "alice", PrincipalType.USER, "x", PrincipalType.USER, false);
        PrincipalPrivilegeSet set = raw.get_privilege_set(table("sales", "orders"), "alice", List.of("g"));
        assertThat(set.getUserPrivileges().get("alice"))
                .extracting(PrivilegeGrantInfo::getPrivilege)
                .containsExactly("INSERT", "UPDATE", "DELETE");
        assertThat(set.getRolePrivileges().get("analysts"))
                .extracting(PrivilegeGrantInfo::getPrivilege)
                .containsExactly("SELECT");
        assertThat(raw.get_privilege_set(global(), "bob", List.of())
                        .getUserPrivileges()
                        .get("bob"))
                .extracting(PrivilegeGrantInfo::getPrivilege)
                .containsExactly("ALL");

        // Revoking any of INSERT, UPDATE, DELETE takes TABLE_WRITE, all three.
        assertThat(raw.revoke_privileges(bag(table("sales", "orders"), "alice", PrincipalType.USER, "DELETE")))
                .isTrue();
        assertThat(raw.list_privileges("alice", PrincipalType.USER, table("sales", "orders")))
                .isEmpty();
        // Hive 4's client: grant_revoke_privileges REVOKE.
        assertThat(client.revoke_privileges(
                        bag(table("sales", "orders"), "analysts", PrincipalType.ROLE, "SELECT"), false))
                .isTrue();
        assertThat(grants().list(ADMIN, orders, ReadPoint.LATEST)).isEmpty();
    }

    @Test
    void aGrantMadeNativelyShowsInListPrivileges() throws Exception {
        salesOrders(hms.hiveClient());
        Grants grants = grants();
        grants.createRole(ADMIN, "readers");
        ObjectPath orders = ObjectPath.of("warehouse", "sales", "orders");
        grants.grant(ADMIN, Grants.Grantee.role("readers"), Privilege.TABLE_READ_DATA, orders);
        // A privilege Hive has no name for is left out (Hive's and Trino's parsers refuse unknown names).
        grants.grant(ADMIN, Grants.Grantee.role("readers"), Privilege.TABLE_READ_METADATA, orders);
        grants.grant(ADMIN, Grants.Grantee.principal("dave"), Privilege.ALL, orders);
        // A catalog has no Hive object: not shown.
        grants.grant(ADMIN, Grants.Grantee.principal("dave"), Privilege.TABLE_READ_DATA, ObjectPath.of("warehouse"));
        assertThat(rows(hms.client().list_privileges(null, null, table("sales", "orders"))))
                .containsExactly("TABLE sales.orders USER dave ALL", "TABLE sales.orders ROLE readers SELECT");
        assertThat(rows(hms.client().list_privileges("dave", PrincipalType.USER, new HiveObjectRef())))
                .containsExactly("TABLE sales.orders USER dave ALL");

        // A listing without an object is of the catalog the call names (and the global grants).
        HiveMetaStoreClient client = hms.hiveClient();
        client.createCatalog(
                new Catalog("other", hms.directory().resolve("other").toUri().toString()));
        Database inOther = new Database();
        inOther.setName("x");
        inOther.setCatalogName("other");
        client.createDatabase(inOther);
        grants.grant(ADMIN, Grants.Grantee.principal("dave"), Privilege.TABLE_READ_DATA, ObjectPath.of("other", "x"));
        grants.grant(ADMIN, Grants.Grantee.principal("dave"), Privilege.ALL, ObjectPath.ROOT);
        assertThat(rows(hms.client().list_privileges("dave", PrincipalType.USER, new HiveObjectRef())))
                .containsExactly("GLOBAL null.null USER dave ALL", "TABLE sales.orders USER dave ALL");
        HiveObjectRef other = new HiveObjectRef();
        other.setCatName("other");
        List<HiveObjectPrivilege> inTheOtherCatalog = hms.client().list_privileges("dave", PrincipalType.USER, other);
        assertThat(rows(inTheOtherCatalog))
                .containsExactly("GLOBAL null.null USER dave ALL", "DATABASE x.null USER dave SELECT");
        assertThat(inTheOtherCatalog.get(1).getHiveObject().getCatName()).isEqualTo("other");
    }

    @Test
    void badInputGetsHivesExceptionWithWhatAndChangesNothing() throws Exception {
        HiveMetaStoreClient client = hms.hiveClient();
        salesOrders(client);
        ThriftHiveMetastore.Client raw = hms.client();
        raw.create_role(new Role("analysts", 0, null));
        raw.grant_role("analysts", "alice", PrincipalType.USER, "x", PrincipalType.USER, false);
        raw.grant_privileges(bag(table("sales", "orders"), "analysts", PrincipalType.ROLE, "SELECT"));
        long before = hms.catalog().lastVid();

        assertRefused(() -> raw.create_role(new Role("analysts", 0, null)), "Role analysts already exists.");
        assertRefused(
                () -> raw.create_role(new Role("public", 0, null)),
                "public role implicitly exists. It can't be created.");
        assertRefused(() -> raw.create_role(new Role("admin", 0, null)), "Role admin already exists.");
        assertRefused(() -> raw.create_role(new Role(null, 0, null)), "No role name given");
        assertRefused(() -> raw.create_role(null), "No role given");
        assertRefused(() -> raw.create_role(new Role("bad name", 0, null)), "Invalid name");
        assertRefused(() -> raw.drop_role("admin"), "public,admin roles can't be dropped.");
        assertRefused(() -> raw.drop_role("nope"), "Role nope does not exist");
        assertRefused(() -> raw.drop_role(null), "No role name given");
        assertRefused(
                () -> raw.grant_role("nope", "alice", PrincipalType.USER, "x", PrincipalType.USER, false),
                "nope role can not be found.");
        assertRefused(
                () -> raw.grant_role("analysts", "alice", PrincipalType.USER, "x", PrincipalType.USER, false),
                "Principal alice already has the role analysts");
        assertRefused(
                () -> raw.grant_role("public", "alice", PrincipalType.USER, "x", PrincipalType.USER, false),
                "No user can be added to public. Since all users implicitly belong to public role.");
        assertRefused(
                () -> raw.grant_role("analysts", "g", PrincipalType.GROUP, "x", PrincipalType.USER, false),
                HmsPrivileges.NO_GROUPS);
        assertRefused(
                () -> raw.grant_role("analysts", "other", PrincipalType.ROLE, "x", PrincipalType.USER, false),
                HmsPrivileges.NO_NESTED_ROLES);
        assertRefused(
                () -> raw.grant_role("analysts", "bob", PrincipalType.USER, "x", PrincipalType.USER, true),
                HmsPrivileges.NO_GRANT_OPTION);
        assertRefused(
                () -> raw.grant_role("analysts", null, PrincipalType.USER, "x", PrincipalType.USER, false),
                "No principal name given");
        assertRefused(
                () -> raw.revoke_role("analysts", "bob", PrincipalType.USER),
                "Principal bob does not have the role analysts");
        assertRefused(() -> raw.revoke_role("nope", "bob", PrincipalType.USER), "nope role can not be found.");
        assertRefused(
                () -> raw.grant_revoke_role(new GrantRevokeRoleRequest(null, "analysts", "bob", PrincipalType.USER)),
                "Unknown request type null");
        assertRefused(() -> raw.grant_revoke_role(adminOption()), HmsPrivileges.NO_GRANT_OPTION);

        HiveObjectRef orders = table("sales", "orders");
        assertRefused(
                () -> raw.grant_privileges(bag(orders, "analysts", PrincipalType.ROLE, "SELECT")),
                "SELECT is already granted on table [sales,orders]");
        assertRefused(
                () -> raw.grant_privileges(bag(orders, "alice", PrincipalType.USER, "FOO")),
                "Unknown privilege FOO: Hive's SELECT, INSERT, UPDATE, DELETE or ALL");
        assertRefused(
                () -> raw.grant_privileges(bag(orders, "nope", PrincipalType.ROLE, "SELECT")),
                "Role nope does not exist");
        assertRefused(
                () -> raw.grant_privileges(bag(table("sales", "missing"), "alice", PrincipalType.USER, "SELECT")),
                "There is no table hive.sales.missing");
        assertRefused(
                () -> raw.grant_privileges(bag(database("nodb"), "alice", PrincipalType.USER, "SELECT")),
                "There is no database hive.nodb");
        HiveObjectRef column = table("sales", "orders");
        column.setObjectType(HiveObjectType.COLUMN);
        column.setColumnName("id");
        assertRefused(
                () -> raw.grant_privileges(bag(column, "alice", PrincipalType.USER, "SELECT")),
                "TreeCat has no column privileges: grant on the table");
        HiveObjectRef partition = table("sales", "orders");
        partition.setObjectType(HiveObjectType.PARTITION);
        partition.setPartValues(List.of("1"));
        assertRefused(
                () -> raw.grant_privileges(bag(partition, "alice", PrincipalType.USER, "SELECT")),
                "TreeCat has no partition privileges: grant on the table");
        assertRefused(
                () -> raw.grant_privileges(bag(orders, "g", PrincipalType.GROUP, "SELECT")), HmsPrivileges.NO_GROUPS);
        assertRefused(
                () -> raw.grant_privileges(bag(orders, "public", PrincipalType.ROLE, "SELECT")),
                HmsPrivileges.NO_PUBLIC);
        assertRefused(
                () -> raw.grant_privileges(bag(orders, null, PrincipalType.USER, "SELECT")), "No principal name given");
        assertRefused(() -> raw.grant_privileges(bag(null, "alice", PrincipalType.USER, "SELECT")), "No object given");
        assertRefused(
                () -> raw.grant_privileges(bag(orders, "alice", PrincipalType.USER, (String) null)), "No privilege");
        PrivilegeBag withOption = bag(orders, "alice", PrincipalType.USER, "SELECT");
        withOption.getPrivileges().get(0).getGrantInfo().setGrantOption(true);
        assertRefused(() -> raw.grant_privileges(withOption), HmsPrivileges.NO_GRANT_OPTION);
        PrivilegeBag noInfo = bag(orders, "alice", PrincipalType.USER, "SELECT");
        noInfo.getPrivileges().get(0).setGrantInfo(null);
        assertRefused(() -> raw.grant_privileges(noInfo), "No grant info given for the privilege");
        // All or none: a good entry beside a bad one is not granted either.
        PrivilegeBag mixed = bag(orders, "alice", PrincipalType.USER, "SELECT");
        mixed.addToPrivileges(bag(table("sales", "missing"), "alice", PrincipalType.USER, "SELECT")
                .getPrivileges()
                .get(0));
        assertRefused(() -> raw.grant_privileges(mixed), "There is no table hive.sales.missing");
        assertRefused(
                () -> raw.revoke_privileges(bag(orders, "alice", PrincipalType.USER, "SELECT")),
                "No grant (SELECT) found on table [sales,orders]");
        GrantRevokePrivilegeRequest revokeOption = new GrantRevokePrivilegeRequest(
                GrantRevokeType.REVOKE, bag(orders, "analysts", PrincipalType.ROLE, "SELECT"));
        revokeOption.setRevokeGrantOption(true);
        assertRefused(() -> raw.grant_revoke_privileges(revokeOption), HmsPrivileges.NO_GRANT_OPTION);
        assertRefused(() -> raw.list_privileges("alice", PrincipalType.USER, null), "No object given");
        assertRefused(() -> raw.get_privilege_set(orders, null, List.of()), "No user name given");

        assertThat(hms.catalog().lastVid()).isEqualTo(before);
        // Reads of what TreeCat cannot hold answer nothing, as there is nothing; the connection still serves.
        assertThat(raw.list_privileges(null, null, column)).isEmpty();
        assertThat(raw.list_privileges("g", PrincipalType.GROUP, orders)).isEmpty();
        assertThat(raw.get_principals_in_role(new GetPrincipalsInRoleRequest("nope"))
                        .getPrincipalGrants())
                .isEmpty();
        assertThat(raw.list_privileges(null, null, orders)).hasSize(1);
    }

    private static GrantRevokeRoleRequest adminOption() {
        GrantRevokeRoleRequest request =
                new GrantRevokeRoleRequest(GrantRevokeType.GRANT, "analysts", "bob", PrincipalType.USER);
        request.setGrantOption(true);
        return request;
    }

    @FunctionalInterface
    interface Call {
        Object run() throws Exception;
    }

    private static void assertRefused(Call call, String message) {
        assertThatThrownBy(call::run).isInstanceOf(MetaException.class).hasMessageContaining(message);
    }

    /** Used by the test with grants in force: the one check a Hive grant feeds. */
    static boolean mayPlan(Authorizer authorizer, Principal who, ObjectPath table) {
        try {
            authorizer.check(Access.of(who, Action.PLAN_SCAN, table));
            return true;
        } catch (RuntimeException denied) {
            return false;
        }
    }
}
