package io.treecat.lakehouse.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Roles and grants on a real tree, decided by the one authorizer every adapter's operations pass. */
class TestGrantsAuthorizer {
    private static final Principal ADMIN = new Principal("admin");
    private static final Principal ALICE = new Principal("alice");
    private static final Principal BOB = new Principal("bob");

    private static final ObjectPath CATALOG = ObjectPath.of("cat");
    private static final ObjectPath NS = CATALOG.child("ns");
    private static final ObjectPath TABLE = NS.child("t");
    private static final ObjectPath OTHER = CATALOG.child("other");

    @TempDir
    Path directory;

    private LakeTestStores.Lake lake;
    private GrantsAuthorizer authorizer;
    private Grants grants;

    @BeforeEach
    void open() {
        lake = LakeTestStores.lake(directory);
        lake.service()
                .commit(new WriteSet(List.of(
                        add(CATALOG), add(NS), add(TABLE), add(NS.child("u")), add(OTHER), add(OTHER.child("x")))));
        authorizer = new GrantsAuthorizer(lake::service, Set.of(ADMIN.name()));
        grants = new Grants(new TransactionRunner(lake::service, authorizer), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        lake.close();
    }

    private static WriteOp add(ObjectPath path) {
        return new WriteOp.Add(path, ObjectKind.INNER, new BsonDocument());
    }

    private void check(Principal who, Action action, ObjectPath target) {
        authorizer.check(Access.of(who, action, target));
    }

    private static void assertDenied(ThrowingCallable call, String privilege, ObjectPath object) {
        assertThatThrownBy(call)
                .isInstanceOf(CatalogException.class)
                .hasMessage("Permission denied")
                .satisfies(e -> {
                    CatalogException failure = (CatalogException) e;
                    assertThat(failure.code()).isEqualTo(ErrorCode.PERMISSION_DENIED);
                    assertThat(failure.context())
                            .containsEntry("privilege", privilege)
                            .containsEntry("object", object.toString());
                });
    }

    private void readersRoleFor(Principal who) {
        grants.createRole(ADMIN, "readers");
        grants.grant(ADMIN, Grants.Grantee.role("readers"), Privilege.TABLE_READ_DATA, NS);
        grants.assign(ADMIN, "readers", who.name());
    }

    @Test
    void aRoleAnIdentityProvidersTokenAssertsCarriesThatRolesGrants() {
        // An external issuer's roles claim, namespaced by the issuer (TokenAuthenticator): no member record is stored.
        grants.createRole(ADMIN, "corp:analysts");
        grants.grant(ADMIN, Grants.Grantee.role("corp:analysts"), Privilege.TABLE_READ_DATA, NS);
        Principal carol = new Principal("corp:carol", java.util.Set.of("corp:analysts"));
        Principal dave = new Principal("corp:dave", java.util.Set.of("corp:engineers"));

        assertThatCode(() -> check(carol, Action.PLAN_SCAN, TABLE)).doesNotThrowAnyException();
        assertDenied(() -> check(carol, Action.COMMIT_TABLE, TABLE), "TABLE_WRITE", TABLE);
        assertThatThrownBy(() -> check(dave, Action.LOAD_TABLE, TABLE))
                .isInstanceOfSatisfying(
                        CatalogException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TABLE_NOT_FOUND));
        assertThatThrownBy(() -> check(new Principal("corp:carol"), Action.LOAD_TABLE, TABLE))
                .as("the same name without the asserted role")
                .isInstanceOf(CatalogException.class);
    }

    @Test
    void aReaderLoadsListsAndPlansButMayNotCommitDropOrCreate() {
        readersRoleFor(ALICE);

        for (Action allowed : List.of(Action.LOAD_TABLE, Action.PLAN_SCAN, Action.LIST_PARTITIONS)) {
            assertThatCode(() -> check(ALICE, allowed, TABLE)).as("%s", allowed).doesNotThrowAnyException();
        }
        assertThatCode(() -> check(ALICE, Action.LOAD_NAMESPACE, NS)).doesNotThrowAnyException();
        assertThatCode(() -> check(ALICE, Action.LIST_TABLES, NS)).doesNotThrowAnyException();
        assertThatCode(() -> check(ALICE, Action.LIST_NAMESPACES, CATALOG)).doesNotThrowAnyException();

        assertDenied(() -> check(ALICE, Action.COMMIT_TABLE, TABLE), "TABLE_WRITE", TABLE);
        assertDenied(() -> check(ALICE, Action.DROP_TABLE, TABLE), "TABLE_DROP", TABLE);
        assertDenied(() -> check(ALICE, Action.CREATE_TABLE, NS), "TABLE_CREATE", NS);
        assertDenied(() -> check(ALICE, Action.DROP_NAMESPACE, NS), "NAMESPACE_DROP", NS);
        // A privilege inherited by every table of the namespace, existing or not: the answer does not tell which.
        ObjectPath missing = NS.child("missing");
        assertDenied(() -> check(ALICE, Action.COMMIT_TABLE, missing), "TABLE_WRITE", missing);
    }

    @Test
    void aCallerWhoMayNotSeeAnObjectGetsTheAnswerOfAMissingOne() {
        readersRoleFor(ALICE);
        ObjectPath missing = OTHER.child("missing");

        for (ObjectPath table : List.of(OTHER.child("x"), missing)) {
            for (Action action : List.of(Action.LOAD_TABLE, Action.COMMIT_TABLE, Action.DROP_TABLE, Action.PLAN_SCAN)) {
                assertThatThrownBy(() -> check(ALICE, action, table))
                        .as("%s %s", action, table)
                        .isInstanceOf(CatalogException.class)
                        .hasMessage("Table does not exist: other." + table.id())
                        .satisfies(
                                e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.TABLE_NOT_FOUND));
            }
        }
        assertThatThrownBy(() -> check(ALICE, Action.LOAD_NAMESPACE, OTHER))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Namespace does not exist: other");
        assertThatThrownBy(() -> check(ALICE, Action.CREATE_TABLE, OTHER))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Namespace does not exist: other");
        // Views are described by VIEW_READ, which the table privilege does not give.
        assertThatThrownBy(() -> check(ALICE, Action.LOAD_VIEW, NS.child("v")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("View does not exist: ns.v");

        assertThatThrownBy(() -> check(BOB, Action.LOAD_TABLE, TABLE))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Table does not exist: ns.t");
        assertThatThrownBy(() -> check(BOB, Action.LIST_TABLES, NS))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Namespace does not exist: ns");
        // Listing a catalog is filtered rather than refused: an unseen catalog lists as empty, as a missing one does.
        assertThatCode(() -> check(BOB, Action.LIST_NAMESPACES, CATALOG)).doesNotThrowAnyException();
    }

    @Test
    void listsAndQueriesSeeOnlyWhatTheCallerMayDescribe() {
        readersRoleFor(ALICE);
        Optional<ObjectType> namespace = Optional.of(ObjectType.NAMESPACE);
        Optional<ObjectType> table = Optional.of(ObjectType.TABLE);

        assertThat(authorizer.maySee(ALICE, CATALOG, Optional.of(ObjectType.CATALOG)))
                .isTrue();
        assertThat(authorizer.maySee(ALICE, NS, namespace)).isTrue();
        assertThat(authorizer.maySee(ALICE, OTHER, namespace)).isFalse();
        assertThat(authorizer.maySee(ALICE, TABLE, table)).isTrue();
        assertThat(authorizer.maySee(ALICE, OTHER.child("x"), table)).isFalse();
        assertThat(authorizer.maySee(ALICE, TABLE.child("_files"), Optional.of(ObjectType.FILE_INDEX)))
                .isTrue();
        assertThat(authorizer.maySee(ALICE, Grants.GRANTS_AREA, Optional.of(ObjectType.GRANTS_AREA)))
                .isFalse();
        assertThat(authorizer.maySee(BOB, CATALOG, Optional.of(ObjectType.CATALOG)))
                .isFalse();
        assertThat(authorizer.maySee(ADMIN, Grants.GRANTS_AREA, Optional.empty()))
                .isTrue();

        // Metadata without data: the table is listed, its files are not.
        grants.grant(ADMIN, Grants.Grantee.principal(BOB.name()), Privilege.TABLE_READ_METADATA, TABLE);
        assertThat(authorizer.maySee(BOB, TABLE, table)).isTrue();
        assertThat(authorizer.maySee(BOB, NS, namespace)).isTrue();
        assertThat(authorizer.maySee(BOB, NS.child("u"), table)).isFalse();
        assertThat(authorizer.maySee(BOB, TABLE.child("_files"), Optional.of(ObjectType.FILE_INDEX)))
                .isFalse();
        assertDenied(() -> check(BOB, Action.PLAN_SCAN, TABLE), "TABLE_READ_DATA", TABLE);
    }

    @Test
    void aRevokeOrAnUnassignTakesEffectAtTheNextCheck() {
        readersRoleFor(ALICE);
        check(ALICE, Action.LOAD_TABLE, TABLE);

        grants.unassign(ADMIN, "readers", ALICE.name());
        assertThatThrownBy(() -> check(ALICE, Action.LOAD_TABLE, TABLE)).hasMessage("Table does not exist: ns.t");

        grants.assign(ADMIN, "readers", ALICE.name());
        check(ALICE, Action.LOAD_TABLE, TABLE);
        grants.revoke(ADMIN, Grants.Grantee.role("readers"), Privilege.TABLE_READ_DATA, NS);
        assertThatThrownBy(() -> check(ALICE, Action.LOAD_TABLE, TABLE)).hasMessage("Table does not exist: ns.t");

        grants.grant(ADMIN, Grants.Grantee.role("readers"), Privilege.TABLE_WRITE, CATALOG);
        check(ALICE, Action.COMMIT_TABLE, TABLE);
        grants.dropRole(ADMIN, "readers");
        assertThatThrownBy(() -> check(ALICE, Action.COMMIT_TABLE, TABLE)).hasMessage("Table does not exist: ns.t");
        assertThat(grants.list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST)).isEmpty();
    }

    @Test
    void theGrantsOfAnOldVidStayReadable() {
        readersRoleFor(ALICE);
        long before = lake.service().lastVid();
        grants.revoke(ADMIN, Grants.Grantee.role("readers"), Privilege.TABLE_READ_DATA, NS);

        assertThat(grants.list(ADMIN, CATALOG, ReadPoint.vid(before)))
                .containsExactly(new Grants.GrantInfo(Grants.Grantee.role("readers"), Privilege.TABLE_READ_DATA, NS));
        assertThat(grants.list(ADMIN, CATALOG, ReadPoint.LATEST)).isEmpty();
        assertThat(grants.listRoles(ADMIN, ReadPoint.vid(before)))
                .singleElement()
                .satisfies(role -> assertThat(role.members()).containsExactly("alice"));
        assertThat(grants.whoCan(ADMIN, TABLE, ReadPoint.vid(before), authorizer.admins()))
                .containsExactly(
                        new Grants.Holder("admin", Privilege.ALL, ObjectPath.ROOT, null),
                        new Grants.Holder("alice", Privilege.TABLE_READ_DATA, NS, "readers"));
        assertThat(grants.whoCan(ADMIN, TABLE, ReadPoint.LATEST, authorizer.admins()))
                .containsExactly(new Grants.Holder("admin", Privilege.ALL, ObjectPath.ROOT, null));
    }

    @Test
    void managingGrantsNeedsManageGrantsOnTheObjectOrTheRootForRoles() {
        grants.grant(ADMIN, Grants.Grantee.principal(ALICE.name()), Privilege.MANAGE_GRANTS, NS);

        grants.grant(ALICE, Grants.Grantee.principal(BOB.name()), Privilege.TABLE_READ_METADATA, TABLE);
        check(BOB, Action.LOAD_TABLE, TABLE);
        assertDenied(
                () -> grants.grant(ALICE, Grants.Grantee.principal(BOB.name()), Privilege.TABLE_WRITE, OTHER),
                "MANAGE_GRANTS",
                OTHER);
        assertDenied(() -> grants.createRole(ALICE, "mine"), "MANAGE_GRANTS", ObjectPath.ROOT);
        assertDenied(() -> grants.listRoles(BOB, ReadPoint.LATEST), "MANAGE_GRANTS", ObjectPath.ROOT);
        // MANAGE_GRANTS gives no data, not even a table's metadata: alice may hand out reads she cannot do herself.
        assertThatThrownBy(() -> check(ALICE, Action.PLAN_SCAN, TABLE)).hasMessage("Table does not exist: ns.t");
        check(ALICE, Action.LOAD_NAMESPACE, NS);
    }

    @Test
    void badGrantsAreRefusedWithNothingWritten() {
        long vid = lake.service().lastVid();
        assertThatThrownBy(() -> grants.grant(
                        ADMIN, Grants.Grantee.principal("x"), Privilege.ALL, ObjectPath.of(".system", "grants")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Privileges are granted on catalogs and what they hold, not here");
        assertThatThrownBy(() ->
                        grants.grant(ADMIN, Grants.Grantee.principal("x"), Privilege.ALL, CATALOG.child("nothing")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No object at this path");
        assertThatThrownBy(() -> grants.grant(ADMIN, Grants.Grantee.role("nobody"), Privilege.ALL, CATALOG))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No role with this name");
        assertThatThrownBy(() -> Grants.Grantee.principal("../x"))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Invalid name");
        assertThatThrownBy(() -> Privilege.parse("TABLE_EVERYTHING"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("Unknown privilege");
        assertThatThrownBy(() -> grants.revoke(ADMIN, Grants.Grantee.principal("x"), Privilege.ALL, CATALOG))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No such grant");
        assertThat(lake.service().lastVid()).isEqualTo(vid);
    }

    @Test
    void nativeWritesCannotForgeAGrant() {
        readersRoleFor(ALICE);
        long vid = lake.service().lastVid();
        assertThatThrownBy(() -> lake.service().commit(new WriteSet(List.of(add(Grants.GRANTS_AREA.child("forged"))))))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("The path is in an area only TreeCat itself writes");
        assertThat(lake.service().lastVid()).isEqualTo(vid);
    }

    @Test
    void theServerAndAdminsMayEverythingAnonymousNothing() {
        for (Map.Entry<Action, AccessRules.Rule> entry : AccessRules.all().entrySet()) {
            Action action = entry.getKey();
            assertThatCode(() -> check(Principal.SYSTEM, action, TABLE)).doesNotThrowAnyException();
            if (entry.getValue().kind() != AccessRules.Kind.SERVER) {
                assertThatCode(() -> check(ADMIN, action, TABLE))
                        .as("%s", action)
                        .doesNotThrowAnyException();
            }
        }
        assertThatThrownBy(() -> check(Principal.ANONYMOUS, Action.LOAD_TABLE, TABLE))
                .hasMessage("Table does not exist: ns.t");
        assertDenied(() -> check(ADMIN, Action.PURGE_TABLES, ObjectPath.ROOT), "SERVER", ObjectPath.ROOT);
        check(Principal.ANONYMOUS, Action.MANAGE_IDEMPOTENCY_KEYS, ObjectPath.ROOT);
        // Not even a list that others get filtered: the ports whose callers are anonymous do not filter yet.
        assertDenied(
                () -> check(Principal.ANONYMOUS, Action.LIST_CATALOGS, ObjectPath.ROOT),
                "NAMESPACE_LIST",
                ObjectPath.ROOT);
        assertThatThrownBy(() -> check(Principal.ANONYMOUS, Action.LIST_NAMESPACES, CATALOG))
                .hasMessage("No such catalog");
    }

    @Test
    void writeImpliesReadImpliesDescribe() {
        assertThat(Privilege.TABLE_WRITE.implies(Privilege.TABLE_READ_DATA)).isTrue();
        assertThat(Privilege.TABLE_WRITE.implies(Privilege.TABLE_READ_METADATA)).isTrue();
        assertThat(Privilege.TABLE_READ_DATA.implies(Privilege.TABLE_WRITE)).isFalse();
        assertThat(Privilege.TABLE_READ_METADATA.implies(Privilege.TABLE_READ_DATA))
                .isFalse();
        assertThat(Privilege.TABLE_CREATE.implies(Privilege.TABLE_READ_METADATA))
                .isFalse();
        assertThat(Privilege.VIEW_WRITE.implies(Privilege.VIEW_READ)).isTrue();
        assertThat(Privilege.MANAGE_GRANTS.implies(Privilege.TABLE_READ_METADATA))
                .isFalse();
        for (Privilege privilege : Privilege.values()) {
            assertThat(Privilege.ALL.implies(privilege)).isTrue();
        }
    }

    @Test
    void aBatchOfGrantsIsOneCommitAllOrNoneEachCheckedOnItsObject() {
        grants.createRole(ADMIN, "readers");
        Grants.GrantInfo read = new Grants.GrantInfo(Grants.Grantee.role("readers"), Privilege.TABLE_READ_DATA, NS);
        Grants.GrantInfo write = new Grants.GrantInfo(Grants.Grantee.principal("alice"), Privilege.TABLE_WRITE, TABLE);
        long before = lake.service().lastVid();
        // One good grant beside one on a missing object: neither is made.
        assertThatThrownBy(() -> grants.grantAll(
                        ADMIN,
                        List.of(read, new Grants.GrantInfo(read.grantee(), read.privilege(), NS.child("missing"))),
                        true))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No object at this path");
        assertThat(lake.service().lastVid()).isEqualTo(before);
        // The same grant twice in a batch is made once.
        grants.grantAll(ADMIN, List.of(read, write, read), true);
        long afterBatch = lake.service().lastVid();
        assertThat(afterBatch).isGreaterThan(before);
        assertThat(grants.list(ADMIN, ObjectPath.ROOT, ReadPoint.LATEST)).containsExactlyInAnyOrder(read, write);
        // Granting again: refused when asked to (Hive's metastore refuses), kept as it is otherwise.
        assertThatThrownBy(() -> grants.grantAll(ADMIN, List.of(write), true))
                .isInstanceOf(CatalogException.class)
                .hasMessage("The grant exists");
        grants.grantAll(ADMIN, List.of(write), false);
        assertThat(lake.service().lastVid()).isEqualTo(afterBatch);
        // MANAGE_GRANTS is checked on each object: on the namespace alone does not reach a grant on another.
        grants.grant(ADMIN, Grants.Grantee.principal("alice"), Privilege.MANAGE_GRANTS, NS);
        assertDenied(
                () -> grants.grantAll(
                        ALICE,
                        List.of(read, new Grants.GrantInfo(read.grantee(), Privilege.TABLE_READ_DATA, OTHER)),
                        true),
                "MANAGE_GRANTS",
                OTHER);
        // A revoke of one missing grant revokes none.
        long granted = lake.service().lastVid();
        assertThatThrownBy(() -> grants.revokeAll(
                        ADMIN, List.of(read, new Grants.GrantInfo(read.grantee(), Privilege.TABLE_WRITE, NS))))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No such grant");
        assertThat(lake.service().lastVid()).isEqualTo(granted);
        grants.revokeAll(ADMIN, List.of(read, write));
        assertThat(grants.list(ADMIN, NS, ReadPoint.LATEST))
                .containsExactly(new Grants.GrantInfo(Grants.Grantee.principal("alice"), Privilege.MANAGE_GRANTS, NS));
    }
}
