package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.google.common.hash.Hashing;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.model.GrantEntry;
import io.treecat.lakehouse.model.GrantsAreaEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.LakeObjectValidator;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.RoleEntry;
import io.treecat.lakehouse.model.RoleMemberEntry;
import io.treecat.lakehouse.model.SystemAreaEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Roles, their members and grants, kept in the tree beside the built-in principals, so they are versioned, readable
 * at any retained vid, and replicate with everything else (docs/security.md, "Authorization"):
 *
 * <pre>
 * /.system/roles                    {@link SystemAreaEntry}
 * /.system/roles/&lt;role&gt;             {@link RoleEntry}
 * /.system/roles/&lt;role&gt;/&lt;principal&gt; {@link RoleMemberEntry}
 * /.system/grants                   {@link GrantsAreaEntry}: a change counter every change here moves
 * /.system/grants/&lt;id&gt;              {@link GrantEntry}: privilege, object, role or principal
 * </pre>
 *
 * Every operation passes {@link Privilege#MANAGE_GRANTS} itself: on the object for a grant, a revoke, a listing of
 * its grants or who can act on it; on the root for roles and their members. Native writes cannot touch the area
 * ({@link LakeObjectValidator#PROTECTED_AREAS}).
 */
public final class Grants {
    static final ObjectPath SYSTEM = ObjectPath.of(LakeKeys.SYSTEM_ID);
    public static final ObjectPath ROLES_AREA = SYSTEM.child(LakeKeys.ROLES_ID);
    public static final ObjectPath GRANTS_AREA = SYSTEM.child(LakeKeys.GRANTS_ID);

    /** Role and principal names: what a URL path segment and an object id hold as they are. */
    /**
     * Role and principal names; a colon for those an external issuer names ({@code <issuer>:<value>}, docs/security.md),
     * which no built-in principal may take.
     */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}");

    /** Whom a grant is to. */
    public record Grantee(String kind, String name) {
        public Grantee {
            requireNonNull(kind, "kind is null");
            requireNonNull(name, "name is null");
            if (!GrantEntry.ROLE.equals(kind) && !GrantEntry.PRINCIPAL.equals(kind)) {
                throw new CatalogException(ErrorCode.INVALID_REQUEST, "A grantee is a role or a principal")
                        .with("kind", kind);
            }
            checkName(name, kind);
        }

        public static Grantee role(String name) {
            return new Grantee(GrantEntry.ROLE, name);
        }

        public static Grantee principal(String name) {
            return new Grantee(GrantEntry.PRINCIPAL, name);
        }
    }

    /** One grant as answers show it. */
    public record GrantInfo(Grantee grantee, Privilege privilege, ObjectPath on) {}

    /** One grant as stored, with when it was made (ms since the epoch). */
    public record StoredGrant(GrantInfo grant, long created) {}

    /** One role and its members. */
    public record RoleInfo(String name, long created, List<String> members) {}

    /** Who holds a privilege that applies to an object: directly, through a role, or as a configured admin. */
    public record Holder(String principal, Privilege privilege, ObjectPath on, String role) {}

    private final TransactionRunner runner;
    private final Clock clock;

    public Grants(TransactionRunner runner, Clock clock) {
        this.runner = requireNonNull(runner, "runner is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    private static Access manage(Principal who, ObjectPath on) {
        return Access.of(who, Action.MANAGE_GRANTS, on);
    }

    // ---- roles

    /** Creates a role. @throws CatalogException {@code NAME_ALREADY_EXISTS}, {@code INVALID_NAME} */
    public RoleInfo createRole(Principal who, String name) {
        checkName(name, "role");
        return runner.write(manage(who, ObjectPath.ROOT), txn -> {
            ObjectPath path = ROLES_AREA.child(name);
            if (ObjectType.ROLE.isTypeOf(txn.read(path))) {
                throw new CatalogException(ErrorCode.NAME_ALREADY_EXISTS, "A role with this name exists")
                        .with("role", name);
            }
            ensureAreas(txn);
            RoleEntry role = RoleEntry.of(name, clock.millis());
            txn.add(path, role);
            return new RoleInfo(name, role.created(), List.of());
        });
    }

    /** Drops a role, its members and every grant to it. */
    public void dropRole(Principal who, String name) {
        runner.write(manage(who, ObjectPath.ROOT), txn -> {
            ObjectPath path = requireRole(txn, name);
            txn.remove(path);
            for (CatalogObject grant : grantObjects(txn)) {
                GrantEntry entry = GrantEntry.decode(grant.value());
                if (GrantEntry.ROLE.equals(entry.granteeKind())
                        && entry.grantee().equals(name)) {
                    txn.remove(grant.path());
                }
            }
            bump(txn);
            return null;
        });
    }

    /** Every role and its members, at {@code point}. */
    public List<RoleInfo> listRoles(Principal who, ReadPoint point) {
        return runner.read(manage(who, ObjectPath.ROOT), point, txn -> {
            if (!ObjectType.SYSTEM_AREA.isTypeOf(txn.read(ROLES_AREA))) {
                return List.of();
            }
            List<RoleInfo> roles = new ArrayList<>();
            for (CatalogObject object : txn.children(ROLES_AREA, ObjectType.ROLE)) {
                RoleEntry role = RoleEntry.decode(object.value());
                List<String> members = txn.children(object.path(), ObjectType.ROLE_MEMBER).stream()
                        .map(member -> RoleMemberEntry.decode(member.value()).principal())
                        .sorted()
                        .toList();
                roles.add(new RoleInfo(role.name(), role.created(), members));
            }
            return roles;
        });
    }

    /**
     * Gives {@code principal} the role; assigning it twice is one assignment.
     *
     * @return whether it was assigned now (false: it already held the role, and nothing was written)
     */
    public boolean assign(Principal who, String role, String principal) {
        checkName(principal, "principal");
        return runner.write(manage(who, ObjectPath.ROOT), txn -> {
            ObjectPath member = requireRole(txn, role).child(principal);
            if (ObjectType.ROLE_MEMBER.isTypeOf(txn.read(member))) {
                return false;
            }
            txn.add(member, RoleMemberEntry.of(principal, clock.millis()));
            bump(txn);
            return true;
        });
    }

    /** Takes the role from {@code principal}. @throws CatalogException {@code OBJECT_NOT_FOUND} if it did not hold it */
    public void unassign(Principal who, String role, String principal) {
        checkName(principal, "principal");
        runner.write(manage(who, ObjectPath.ROOT), txn -> {
            ObjectPath member = requireRole(txn, role).child(principal);
            if (!ObjectType.ROLE_MEMBER.isTypeOf(txn.read(member))) {
                throw new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "The principal does not hold the role")
                        .with("role", role)
                        .with("principal", principal);
            }
            txn.remove(member);
            bump(txn);
            return null;
        });
    }

    // ---- grants

    /**
     * Grants {@code privilege} on {@code on} (and, inherited, everything below it); granting twice is one grant.
     *
     * @throws CatalogException {@code OBJECT_NOT_FOUND} when nothing is at {@code on}, {@code ROLE_NOT_FOUND} for a
     *     role that does not exist, {@code INVALID_PATH} for a path in a system area
     */
    public GrantInfo grant(Principal who, Grantee grantee, Privilege privilege, ObjectPath on) {
        checkGrantable(on);
        return runner.write(manage(who, on), txn -> {
            if (!on.isRoot() && txn.read(on).isEmpty()) {
                throw new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "No object at this path")
                        .with("path", on.toString());
            }
            if (GrantEntry.ROLE.equals(grantee.kind())) {
                requireRole(txn, grantee.name());
            }
            ensureAreas(txn);
            ObjectPath path = GRANTS_AREA.child(grantId(grantee, privilege, on));
            if (!ObjectType.GRANT.isTypeOf(txn.read(path))) {
                txn.add(path, GrantEntry.of(grantee.kind(), grantee.name(), privilege.name(), on, clock.millis()));
                bump(txn);
            }
            return new GrantInfo(grantee, privilege, on);
        });
    }

    /**
     * Makes every grant of {@code grants} in one commit, all or none (Hive's {@code grant_privileges} sends a bag of
     * them): {@link Privilege#MANAGE_GRANTS} is checked on each object before the transaction starts. The same grant
     * named twice in {@code grants} is made once.
     *
     * @param refuseGranted whether a grant already made refuses the whole batch ({@code NAME_ALREADY_EXISTS}, context
     *     the grant), as Hive's metastore refuses granting twice; else it is kept as it is
     * @throws CatalogException as {@link #grant}, for the first grant that fails; then nothing was written
     */
    public List<GrantInfo> grantAll(Principal who, List<GrantInfo> grants, boolean refuseGranted) {
        List<GrantInfo> distinct = List.copyOf(new LinkedHashSet<>(grants));
        if (distinct.isEmpty()) {
            return List.of();
        }
        distinct.forEach(grant -> checkGrantable(grant.on()));
        return runner.write(accesses(who, distinct), RetryPolicy.DEFAULT, txn -> {
            boolean changed = false;
            for (GrantInfo grant : distinct) {
                if (!grant.on().isRoot() && txn.read(grant.on()).isEmpty()) {
                    throw new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "No object at this path")
                            .with("path", grant.on().toString());
                }
                if (GrantEntry.ROLE.equals(grant.grantee().kind())) {
                    requireRole(txn, grant.grantee().name());
                }
                ensureAreas(txn);
                ObjectPath path = GRANTS_AREA.child(grantId(grant.grantee(), grant.privilege(), grant.on()));
                if (ObjectType.GRANT.isTypeOf(txn.read(path))) {
                    if (refuseGranted) {
                        throw new CatalogException(ErrorCode.NAME_ALREADY_EXISTS, "The grant exists")
                                .with(
                                        "grantee",
                                        grant.grantee().kind() + " "
                                                + grant.grantee().name())
                                .with("privilege", grant.privilege().name())
                                .with("on", grant.on().toString());
                    }
                    continue;
                }
                txn.add(
                        path,
                        GrantEntry.of(
                                grant.grantee().kind(),
                                grant.grantee().name(),
                                grant.privilege().name(),
                                grant.on(),
                                clock.millis()));
                changed = true;
            }
            if (changed) {
                bump(txn);
            }
            return distinct;
        });
    }

    /**
     * Revokes every grant of {@code grants} in one commit, all or none, checking {@link Privilege#MANAGE_GRANTS} on each
     * object first. The same grant named twice is revoked once.
     *
     * @throws CatalogException {@code OBJECT_NOT_FOUND} for the first grant that does not exist; then nothing changed
     */
    public void revokeAll(Principal who, List<GrantInfo> grants) {
        List<GrantInfo> distinct = List.copyOf(new LinkedHashSet<>(grants));
        if (distinct.isEmpty()) {
            return;
        }
        runner.write(accesses(who, distinct), RetryPolicy.DEFAULT, txn -> {
            for (GrantInfo grant : distinct) {
                ObjectPath path = GRANTS_AREA.child(grantId(grant.grantee(), grant.privilege(), grant.on()));
                if (!ObjectType.GRANT.isTypeOf(txn.read(path))) {
                    throw new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "No such grant")
                            .with(
                                    "grantee",
                                    grant.grantee().kind() + " "
                                            + grant.grantee().name())
                            .with("privilege", grant.privilege().name())
                            .with("on", grant.on().toString());
                }
                txn.remove(path);
            }
            bump(txn);
            return null;
        });
    }

    private static List<Access> accesses(Principal who, List<GrantInfo> grants) {
        return grants.stream()
                .map(GrantInfo::on)
                .distinct()
                .map(on -> manage(who, on))
                .toList();
    }

    /**
     * The grants at {@code point} as they are stored, with when each was made (for answers that show it, such as
     * Hive's {@code PrivilegeGrantInfo.createTime}), on {@code on} and below; as {@link #list}.
     */
    public List<StoredGrant> listStored(Principal who, ObjectPath on, ReadPoint point) {
        return runner.read(
                manage(who, on),
                point,
                txn -> grantObjects(txn).stream()
                        .map(object -> GrantEntry.decode(object.value()))
                        .filter(entry -> on.isAncestorOrSelf(entry.on()))
                        .map(entry -> new StoredGrant(
                                new GrantInfo(
                                        new Grantee(entry.granteeKind(), entry.grantee()),
                                        Privilege.parse(entry.privilege()),
                                        entry.on()),
                                entry.created()))
                        .sorted(Comparator.comparing(
                                        (StoredGrant stored) -> stored.grant().on())
                                .thenComparing(
                                        stored -> stored.grant().grantee().kind())
                                .thenComparing(
                                        stored -> stored.grant().grantee().name())
                                .thenComparing(stored -> stored.grant().privilege()))
                        .toList());
    }

    /** Revokes a grant. @throws CatalogException {@code OBJECT_NOT_FOUND} when there is no such grant */
    public void revoke(Principal who, Grantee grantee, Privilege privilege, ObjectPath on) {
        runner.write(manage(who, on), txn -> {
            ObjectPath path = GRANTS_AREA.child(grantId(grantee, privilege, on));
            if (!ObjectType.GRANT.isTypeOf(txn.read(path))) {
                throw new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "No such grant")
                        .with("grantee", grantee.kind() + " " + grantee.name())
                        .with("privilege", privilege.name())
                        .with("on", on.toString());
            }
            txn.remove(path);
            bump(txn);
            return null;
        });
    }

    /**
     * The grants at {@code point} on {@code on} and every object below it (all of them for the root), sorted by
     * object: grants are versioned, so this answers "who could do what then" too.
     */
    public List<GrantInfo> list(Principal who, ObjectPath on, ReadPoint point) {
        return runner.read(
                manage(who, on),
                point,
                txn -> grantObjects(txn).stream()
                        .map(object -> GrantEntry.decode(object.value()))
                        .filter(entry -> on.isAncestorOrSelf(entry.on()))
                        .map(entry -> new GrantInfo(
                                new Grantee(entry.granteeKind(), entry.grantee()),
                                Privilege.parse(entry.privilege()),
                                entry.on()))
                        .sorted(Comparator.comparing((GrantInfo info) -> info.on())
                                .thenComparing(info -> info.grantee().kind())
                                .thenComparing(info -> info.grantee().name())
                                .thenComparing(GrantInfo::privilege))
                        .toList());
    }

    /**
     * Who may do what on {@code path} at {@code point}: each grant on it or an ancestor, to a principal directly or
     * through a role (one row per member), and the configured admins.
     */
    public List<Holder> whoCan(Principal who, ObjectPath path, ReadPoint point, Set<String> admins) {
        return runner.read(manage(who, path), point, txn -> {
            GrantSet grants = GrantsAuthorizer.read(txn);
            List<Holder> holders = new ArrayList<>();
            for (String admin : new TreeSet<>(admins)) {
                holders.add(new Holder(admin, Privilege.ALL, ObjectPath.ROOT, null));
            }
            grants.principalGrants()
                    .forEach((principal, list) -> list.stream()
                            .filter(grant -> grant.on().isAncestorOrSelf(path))
                            .forEach(grant -> holders.add(new Holder(principal, grant.privilege(), grant.on(), null))));
            for (Map.Entry<String, List<GrantSet.Grant>> entry :
                    grants.roleGrants().entrySet()) {
                Set<String> members = grants.roles().getOrDefault(entry.getKey(), Set.of());
                for (GrantSet.Grant grant : entry.getValue()) {
                    if (!grant.on().isAncestorOrSelf(path)) {
                        continue;
                    }
                    if (members.isEmpty()) {
                        holders.add(new Holder(null, grant.privilege(), grant.on(), entry.getKey()));
                    }
                    for (String member : new TreeSet<>(members)) {
                        holders.add(new Holder(member, grant.privilege(), grant.on(), entry.getKey()));
                    }
                }
            }
            holders.sort(Comparator.comparing((Holder holder) -> String.valueOf(holder.principal()))
                    .thenComparing(Holder::privilege)
                    .thenComparing(Holder::on)
                    .thenComparing(holder -> String.valueOf(holder.role())));
            return holders;
        });
    }

    // ---- helpers

    private static void checkName(String name, String kind) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new CatalogException(
                            ErrorCode.INVALID_NAME,
                            "Invalid name: it must be 1 to 128 letters, digits and . _ @ : -, starting with a letter"
                                    + " or digit")
                    .with("kind", kind);
        }
    }

    private static void checkGrantable(ObjectPath on) {
        if (!on.isRoot()
                && LakeObjectValidator.PROTECTED_AREAS.contains(on.ids().get(0))) {
            throw new CatalogException(
                            ErrorCode.INVALID_PATH, "Privileges are granted on catalogs and what they hold, not here")
                    .with("path", on.toString());
        }
    }

    private static ObjectPath requireRole(LakeTransaction txn, String name) {
        checkName(name, "role");
        ObjectPath path = ROLES_AREA.child(name);
        if (!ObjectType.ROLE.isTypeOf(txn.read(path))) {
            throw new CatalogException(ErrorCode.ROLE_NOT_FOUND, "No role with this name").with("role", name);
        }
        return path;
    }

    private static List<CatalogObject> grantObjects(LakeTransaction txn) {
        if (!ObjectType.GRANTS_AREA.isTypeOf(txn.read(GRANTS_AREA))) {
            return List.of();
        }
        return txn.children(GRANTS_AREA, ObjectType.GRANT);
    }

    /** The id of a grant: the same four fields, the same grant. */
    static String grantId(Grantee grantee, Privilege privilege, ObjectPath on) {
        String key = grantee.kind() + '\0' + grantee.name() + '\0' + privilege.name() + '\0' + on;
        return Hashing.sha256()
                .hashString(key, StandardCharsets.UTF_8)
                .toString()
                .substring(0, 32);
    }

    private static void ensureAreas(LakeTransaction txn) {
        if (!ObjectType.SYSTEM_AREA.isTypeOf(txn.read(SYSTEM))) {
            txn.add(SYSTEM, new SystemAreaEntry());
        }
        if (!ObjectType.SYSTEM_AREA.isTypeOf(txn.read(ROLES_AREA))) {
            txn.add(ROLES_AREA, new SystemAreaEntry());
        }
        if (!ObjectType.GRANTS_AREA.isTypeOf(txn.read(GRANTS_AREA))) {
            txn.add(GRANTS_AREA, new GrantsAreaEntry(0));
        }
    }

    /** Moves the change counter in the same commit: authorizers that cached the grants read them again. */
    private static void bump(LakeTransaction txn) {
        Optional<CatalogObject> area = txn.read(GRANTS_AREA);
        if (ObjectType.GRANTS_AREA.isTypeOf(area)) {
            txn.update(GRANTS_AREA, GrantsAreaEntry.decode(area.get().value()).next());
        }
    }
}
