package io.treecat.conformance.hms;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hive.metastore.api.GetPrincipalsInRoleRequest;
import org.apache.hadoop.hive.metastore.api.GetRoleGrantsForPrincipalRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokePrivilegeRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokeRoleRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokeType;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.HiveObjectType;
import org.apache.hadoop.hive.metastore.api.PrincipalPrivilegeSet;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeBag;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.RolePrincipalGrant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hive's privilege and role calls against Hive 4.0.1 and TreeCat (docs/security.md, "Hive's privilege and role
 * calls"): the shapes of the answers (role names, memberships, privileges on an object as Hive names them) and the
 * exception types of refusals. What a server stamps (create and grant times, the grantor TreeCat does not record, the
 * authorizer) is left out; where TreeCat refuses what Hive stores (a missing table, an unknown privilege name, a
 * column grant, a group, a grant option) or answers {@code true} for nothing done, {@link KnownHiveDivergences} lists
 * it as decided. The peers are shared, so every name here starts with {@code dpriv}.
 */
@ExtendWith(SharedHmsPeers.class)
@ComparesCalls({
    "create_role",
    "drop_role",
    "get_role_names",
    "list_roles",
    "grant_role",
    "revoke_role",
    "grant_revoke_role",
    "get_principals_in_role",
    "get_role_grants_for_principal",
    "grant_privileges",
    "revoke_privileges",
    "grant_revoke_privileges",
    "list_privileges",
    "get_privilege_set"
})
class PrivilegeCallsDifferentialIT {
    private static final String DB = "dpriv";
    private static final String ROLE = "dpriv_analysts";
    private static Differential differential;
    private static HmsValues values;

    @BeforeAll
    static void setUp(HmsPeers peers) {
        differential = peers.differential();
        values = peers.values();
        differential.setUp(
                "create_database " + DB,
                Differential.done((client, peer) -> client.create_database(Structs.database(DB))));
        differential.setUp(
                "create_table " + DB + ".t",
                Differential.done((client, peer) -> client.create_table(Structs.table(DB, "t"))));
    }

    private static HiveObjectRef table(String name) {
        HiveObjectRef object = new HiveObjectRef(HiveObjectType.TABLE, DB, name, null, null);
        object.setCatName("hive");
        return object;
    }

    private static HiveObjectRef database() {
        HiveObjectRef object = new HiveObjectRef(HiveObjectType.DATABASE, DB, null, null, null);
        object.setCatName("hive");
        return object;
    }

    private static PrivilegeBag bag(HiveObjectRef object, String principal, PrincipalType type, String privilege) {
        PrivilegeBag bag = new PrivilegeBag();
        bag.addToPrivileges(new HiveObjectPrivilege(
                object,
                principal,
                type,
                new PrivilegeGrantInfo(privilege, 0, "differential", PrincipalType.USER, false),
                "hive"));
        return bag;
    }

    /** Privileges as their shape: object, principal, Hive name, grant option (no times, grantor or authorizer). */
    private static List<String> shape(List<HiveObjectPrivilege> privileges) {
        List<String> rows = new ArrayList<>();
        for (HiveObjectPrivilege privilege : privileges) {
            HiveObjectRef object = privilege.getHiveObject();
            rows.add(object.getObjectType() + " " + object.getDbName() + "." + object.getObjectName() + " "
                    + privilege.getPrincipalType() + " " + privilege.getPrincipalName() + " "
                    + privilege.getGrantInfo().getPrivilege().toUpperCase(java.util.Locale.ROOT) + " "
                    + privilege.getGrantInfo().isGrantOption());
        }
        return HmsValues.sorted(rows);
    }

    /** A privilege set as holder → Hive names, holders without any left out (Hive lists public's empty list). */
    private static Map<String, List<String>> shape(PrincipalPrivilegeSet set) {
        Map<String, List<String>> shaped = new TreeMap<>();
        add(shaped, "user ", set.getUserPrivileges());
        add(shaped, "role ", set.getRolePrivileges());
        add(shaped, "group ", set.getGroupPrivileges());
        return shaped;
    }

    private static void add(
            Map<String, List<String>> shaped, String kind, Map<String, List<PrivilegeGrantInfo>> privileges) {
        if (privileges == null) {
            return;
        }
        privileges.forEach((holder, infos) -> {
            if (!infos.isEmpty()) {
                shaped.put(
                        kind + holder,
                        HmsValues.sorted(infos.stream()
                                .map(info -> info.getPrivilege().toUpperCase(java.util.Locale.ROOT))
                                .toList()));
            }
        });
    }

    private static List<String> memberships(List<RolePrincipalGrant> grants) {
        return HmsValues.sorted(grants.stream()
                .map(grant -> grant.getRoleName() + " " + grant.getPrincipalType() + " " + grant.getPrincipalName()
                        + " " + grant.isGrantOption())
                .toList());
    }

    /** The role names this class made, and Hive's two built-in ones: the peers are shared. */
    private static List<String> ours(List<String> names) {
        return HmsValues.sorted(names.stream()
                .filter(name -> name.startsWith("dpriv") || name.equals("admin") || name.equals("public"))
                .toList());
    }

    @Test
    void roleCalls() {
        differential.compare(
                "get_role_names", "built-in roles", (client, peer) -> ours(client.get_role_names()), values::of);
        differential.compare(
                "create_role",
                ROLE,
                (client, peer) -> client.create_role(new Role(ROLE, 0, "differential")),
                values::of);
        differential.compare(
                "create_role", "taken", (client, peer) -> client.create_role(new Role(ROLE, 0, null)), values::of);
        differential.compare(
                "create_role", "public", (client, peer) -> client.create_role(new Role("public", 0, null)), values::of);
        differential.compare(
                "create_role", "admin", (client, peer) -> client.create_role(new Role("admin", 0, null)), values::of);
        differential.compare("get_role_names", "with one", (client, peer) -> ours(client.get_role_names()), values::of);
        differential.compare(
                "grant_role",
                "to a user",
                (client, peer) -> client.grant_role(
                        ROLE, "dpriv_alice", PrincipalType.USER, "differential", PrincipalType.USER, false),
                values::of);
        differential.compare(
                "grant_role",
                "twice",
                (client, peer) -> client.grant_role(
                        ROLE, "dpriv_alice", PrincipalType.USER, "differential", PrincipalType.USER, false),
                values::of);
        differential.compare(
                "grant_role",
                "unknown role",
                (client, peer) -> client.grant_role(
                        "dpriv_nope", "dpriv_alice", PrincipalType.USER, "differential", PrincipalType.USER, false),
                values::of);
        differential.compare(
                "grant_role",
                "public",
                (client, peer) -> client.grant_role(
                        "public", "dpriv_alice", PrincipalType.USER, "differential", PrincipalType.USER, false),
                values::of);
        GrantRevokeRoleRequest grant =
                new GrantRevokeRoleRequest(GrantRevokeType.GRANT, ROLE, "dpriv_bob", PrincipalType.USER);
        grant.setGrantor("differential");
        grant.setGrantorType(PrincipalType.USER);
        differential.compare(
                "grant_revoke_role",
                "grant",
                (client, peer) -> client.grant_revoke_role(grant).isSuccess(),
                values::of);
        differential.compare(
                "list_roles",
                "a member",
                (client, peer) -> HmsValues.sorted(client.list_roles("dpriv_alice", PrincipalType.USER).stream()
                        .map(Role::getRoleName)
                        .toList()),
                values::of);
        differential.compare(
                "get_principals_in_role",
                ROLE,
                (client, peer) -> memberships(client.get_principals_in_role(new GetPrincipalsInRoleRequest(ROLE))
                        .getPrincipalGrants()),
                values::of);
        differential.compare(
                "get_principals_in_role",
                "unknown role",
                (client, peer) ->
                        memberships(client.get_principals_in_role(new GetPrincipalsInRoleRequest("dpriv_nope"))
                                .getPrincipalGrants()),
                values::of);
        differential.compare(
                "get_role_grants_for_principal",
                "a member",
                (client, peer) -> memberships(client.get_role_grants_for_principal(
                                new GetRoleGrantsForPrincipalRequest("dpriv_alice", PrincipalType.USER))
                        .getPrincipalGrants()),
                values::of);
        differential.compare(
                "grant_revoke_role",
                "revoke",
                (client, peer) -> client.grant_revoke_role(new GrantRevokeRoleRequest(
                                GrantRevokeType.REVOKE, ROLE, "dpriv_bob", PrincipalType.USER))
                        .isSuccess(),
                values::of);
        differential.compare(
                "revoke_role",
                "a member",
                (client, peer) -> client.revoke_role(ROLE, "dpriv_alice", PrincipalType.USER),
                values::of);
        differential.compare(
                "revoke_role",
                "not held",
                (client, peer) -> client.revoke_role(ROLE, "dpriv_carol", PrincipalType.USER),
                values::of);
        differential.compare(
                "revoke_role",
                "unknown role",
                (client, peer) -> client.revoke_role("dpriv_nope", "dpriv_alice", PrincipalType.USER),
                values::of);
        // Hive stores a group's membership; TreeCat has no groups (decided).
        differential.compare(
                "grant_role",
                "to a group",
                (client, peer) -> client.grant_role(
                        ROLE, "dpriv_group", PrincipalType.GROUP, "differential", PrincipalType.USER, false),
                values::of);
        differential.compare("drop_role", "admin", (client, peer) -> client.drop_role("admin"), values::of);
        differential.compare("drop_role", ROLE, (client, peer) -> client.drop_role(ROLE), values::of);
        differential.compare("drop_role", "unknown role", (client, peer) -> client.drop_role("dpriv_nope"), values::of);
        differential.assertAgreed("roleCalls");
    }

    @Test
    void privilegeCalls() {
        String role = "dpriv_readers";
        differential.setUp("create_role " + role, (client, peer) -> client.create_role(new Role(role, 0, null)));
        differential.compare(
                "grant_privileges",
                "SELECT on a table to a role",
                (client, peer) -> client.grant_privileges(bag(table("t"), role, PrincipalType.ROLE, "SELECT")),
                values::of);
        differential.compare(
                "grant_privileges",
                "granted twice",
                (client, peer) -> client.grant_privileges(bag(table("t"), role, PrincipalType.ROLE, "SELECT")),
                values::of);
        differential.compare(
                "grant_privileges",
                "unknown role",
                (client, peer) -> client.grant_privileges(bag(table("t"), "dpriv_nope", PrincipalType.ROLE, "SELECT")),
                values::of);
        differential.compare(
                "grant_privileges",
                "missing database",
                (client, peer) -> {
                    HiveObjectRef object = database();
                    object.setDbName("dpriv_nodb");
                    return client.grant_privileges(bag(object, "dpriv_alice", PrincipalType.USER, "SELECT"));
                },
                values::of);
        differential.compare(
                "grant_revoke_privileges",
                "grant SELECT on the database to a user",
                (client, peer) -> client.grant_revoke_privileges(new GrantRevokePrivilegeRequest(
                                GrantRevokeType.GRANT, bag(database(), "dpriv_alice", PrincipalType.USER, "SELECT")))
                        .isSuccess(),
                values::of);
        differential.compare(
                "list_privileges",
                "a role on the table",
                (client, peer) -> shape(client.list_privileges(role, PrincipalType.ROLE, table("t"))),
                values::of);
        differential.compare(
                "list_privileges",
                "everyone on the table",
                (client, peer) -> shape(client.list_privileges(null, null, table("t"))),
                values::of);
        differential.compare(
                "list_privileges",
                "a user on the database",
                (client, peer) -> shape(client.list_privileges("dpriv_alice", PrincipalType.USER, database())),
                values::of);
        differential.compare(
                "list_privileges",
                "a missing table",
                (client, peer) -> shape(client.list_privileges(null, null, table("missing"))),
                values::of);
        differential.setUp(
                "grant_role " + role + " to dpriv_dave",
                (client, peer) -> client.grant_role(
                        role, "dpriv_dave", PrincipalType.USER, "differential", PrincipalType.USER, false));
        differential.compare(
                "get_privilege_set",
                "a member on the table",
                (client, peer) -> shape(client.get_privilege_set(table("t"), "dpriv_dave", List.of())),
                values::of);
        differential.compare(
                "get_privilege_set",
                "a user on the database",
                (client, peer) -> shape(client.get_privilege_set(database(), "dpriv_alice", List.of())),
                values::of);
        differential.compare(
                "revoke_privileges",
                "SELECT of the role",
                (client, peer) -> client.revoke_privileges(bag(table("t"), role, PrincipalType.ROLE, "SELECT")),
                values::of);
        differential.compare(
                "revoke_privileges",
                "not granted",
                (client, peer) -> client.revoke_privileges(bag(table("t"), role, PrincipalType.ROLE, "SELECT")),
                values::of);
        differential.compare(
                "grant_revoke_privileges",
                "revoke the database's SELECT",
                (client, peer) -> client.grant_revoke_privileges(new GrantRevokePrivilegeRequest(
                                GrantRevokeType.REVOKE, bag(database(), "dpriv_alice", PrincipalType.USER, "SELECT")))
                        .isSuccess(),
                values::of);
        differential.compare(
                "list_privileges",
                "everyone on the table, revoked",
                (client, peer) -> shape(client.list_privileges(null, null, table("t"))),
                values::of);
        // Last: Hive stores these, and they would show in its lists above (decided divergences).
        differential.compare(
                "grant_privileges",
                "missing table",
                (client, peer) ->
                        client.grant_privileges(bag(table("missing"), "dpriv_alice", PrincipalType.USER, "SELECT")),
                values::of);
        differential.compare(
                "grant_privileges",
                "unknown privilege",
                (client, peer) -> client.grant_privileges(bag(table("t"), "dpriv_alice", PrincipalType.USER, "FOO")),
                values::of);
        differential.compare(
                "grant_privileges",
                "a column",
                (client, peer) -> {
                    HiveObjectRef column = table("t");
                    column.setObjectType(HiveObjectType.COLUMN);
                    column.setColumnName("id");
                    return client.grant_privileges(bag(column, "dpriv_alice", PrincipalType.USER, "SELECT"));
                },
                values::of);
        differential.assertAgreed("privilegeCalls");
    }
}
