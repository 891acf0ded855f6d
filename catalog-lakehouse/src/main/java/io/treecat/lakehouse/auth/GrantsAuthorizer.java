package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.iceberg.IcebergNames;
import io.treecat.lakehouse.model.GrantEntry;
import io.treecat.lakehouse.model.GrantsAreaEntry;
import io.treecat.lakehouse.model.LakeObjectValidator;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.RoleEntry;
import io.treecat.lakehouse.model.RoleMemberEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authorizer of a server with {@code auth.enabled}: decides each {@link Access} by the roles and grants stored in
 * {@code /.system} ({@link Grants}), by the rules of {@link AccessRules} (docs/security.md, "Authorization").
 *
 * <p>Which grants: the newest. A read at an old vid is decided by today's grants, so a revoke also closes the past;
 * the grants as they were at an old vid stay readable ({@link Grants#list}). They are read once per change: the
 * decision reads the newest vid, and when it moved, the grants' area's change counter; only when that moved too are
 * the roles and grants read again, at that vid.
 *
 * <p>Refusals: a caller who may not even see the target (no privilege on it, above it or below it; for a table, not
 * {@link Privilege#TABLE_READ_METADATA}) gets the very answer a missing object gets, so a refusal never tells whether
 * the object exists. A caller who may see it gets {@code PERMISSION_DENIED} naming the privilege and the object.
 * Neither depends on whether the object exists: the check runs before the transaction reads anything.
 */
public final class GrantsAuthorizer implements Authorizer {
    private static final Logger LOG = LoggerFactory.getLogger(GrantsAuthorizer.class);

    private record Cached(CatalogService service, long vid, GrantSet grants) {}

    private final Supplier<CatalogService> service;
    private final Set<String> admins;
    private volatile Cached cached;

    /**
     * @param service the catalog the grants are read from (looked up per check: a restore may replace it)
     * @param admins the principals that hold {@link Privilege#ALL} on the root whatever the grants say
     *     ({@code auth.admin-principals}): how the first grants are made
     */
    public GrantsAuthorizer(Supplier<CatalogService> service, Set<String> admins) {
        this.service = requireNonNull(service, "service is null");
        this.admins = ImmutableSet.copyOf(admins);
    }

    @Override
    public void check(Access access) {
        AccessRules.Rule rule = AccessRules.of(access.action());
        Principal who = access.principal();
        if (who.equals(Principal.SYSTEM) || rule.kind() == AccessRules.Kind.ANYONE) {
            return;
        }
        if (rule.kind() == AccessRules.Kind.SERVER) {
            throw denied(access, "SERVER");
        }
        if (admins.contains(who.name())) {
            return;
        }
        ObjectPath target = access.target();
        if (who.equals(Principal.ANONYMOUS)) {
            // Not even a filtered list: the unauthenticated ports' callers (HMS, gRPC) are not filtered by their
            // adapters yet, so anonymous gets nothing at all.
            if (rule.hidden() != AccessRules.Hidden.NONE && target.depth() >= 1) {
                throw hidden(access, "anonymous may not see the object", rule.hidden());
            }
            throw denied(
                    access,
                    rule.privilege() == null
                            ? Privilege.NAMESPACE_LIST.name()
                            : rule.privilege().name());
        }
        if (rule.filtered() && (target.depth() <= 1 || rule.hidden() == AccessRules.Hidden.NONE)) {
            return;
        }
        GrantSet grants = current();
        boolean visible = visible(grants, who, target, rule.hidden());
        if (rule.privilege() == null && visible) {
            return;
        }
        if (rule.privilege() != null && visible && holds(grants, who, rule.privilege(), target)) {
            return;
        }
        if (!visible && rule.hidden() != AccessRules.Hidden.NONE && target.depth() >= 1) {
            throw hidden(access, "may not see the object", rule.hidden());
        }
        throw denied(
                access,
                rule.privilege() == null
                        ? Privilege.NAMESPACE_LIST.name()
                        : rule.privilege().name());
    }

    @Override
    public boolean maySee(Principal who, ObjectPath path, Optional<ObjectType> type) {
        if (who.equals(Principal.SYSTEM) || admins.contains(who.name())) {
            return true;
        }
        GrantSet grants = current();
        if (isProtected(path)) {
            return holds(grants, who, Privilege.MANAGE_GRANTS, ObjectPath.ROOT);
        }
        if (type.isEmpty()) {
            return holds(grants, who, Privilege.TABLE_READ_DATA, path);
        }
        return switch (type.get()) {
            case CATALOG, NAMESPACE -> grants.sees(who, path);
            case TABLE -> holds(grants, who, Privilege.TABLE_READ_METADATA, path);
            case VIEW -> holds(grants, who, Privilege.VIEW_READ, path);
            default -> holds(grants, who, Privilege.TABLE_READ_DATA, path);
        };
    }

    @Override
    public boolean allows(Principal who, Privilege privilege, ObjectPath path) {
        return holds(who, privilege, path);
    }

    /** Whether {@code who} holds {@code privilege} on {@code path} now (admins and the server hold everything). */
    public boolean holds(Principal who, Privilege privilege, ObjectPath path) {
        if (who.equals(Principal.SYSTEM) || admins.contains(who.name())) {
            return true;
        }
        return holds(current(), who, privilege, path);
    }

    /** The configured admins ({@code auth.admin-principals}). */
    public Set<String> admins() {
        return admins;
    }

    private static boolean holds(GrantSet grants, Principal who, Privilege privilege, ObjectPath path) {
        if (who.equals(Principal.ANONYMOUS)) {
            return false;
        }
        return grants.holds(who, privilege, path);
    }

    private static boolean visible(GrantSet grants, Principal who, ObjectPath target, AccessRules.Hidden hidden) {
        if (who.equals(Principal.ANONYMOUS)) {
            return false;
        }
        return switch (hidden) {
            case TABLE -> grants.holds(who, Privilege.TABLE_READ_METADATA, target);
            case VIEW -> grants.holds(who, Privilege.VIEW_READ, target);
            case NAMESPACE, NONE -> grants.sees(who, target);
        };
    }

    private static boolean isProtected(ObjectPath path) {
        return !path.ids().isEmpty()
                && LakeObjectValidator.PROTECTED_AREAS.contains(path.ids().get(0));
    }

    private static CatalogException denied(Access access, String privilege) {
        DeniedAttempts.record(DeniedAttempts.Denial.forbidden(
                access.principal().name(),
                access.action().name(),
                privilege,
                access.target().toString()));
        return new CatalogException(ErrorCode.PERMISSION_DENIED, "Permission denied")
                .with("privilege", privilege)
                .with("object", access.target().toString());
    }

    /**
     * A refusal answered as the lake's "not found" ({@link #notFound}), recorded as a denied attempt with the
     * privilege that would have made the object visible: the log says what the answer hides.
     */
    private static CatalogException hidden(Access access, String reason, AccessRules.Hidden hidden) {
        String privilege = switch (hidden) {
            case TABLE -> Privilege.TABLE_READ_METADATA.name();
            case VIEW -> Privilege.VIEW_READ.name();
            case NAMESPACE, NONE -> Privilege.NAMESPACE_LIST.name();
        };
        DeniedAttempts.record(new DeniedAttempts.Denial(
                404,
                access.principal().name(),
                reason,
                access.action().name(),
                privilege,
                access.target().toString()));
        return notFound(hidden, access.target());
    }

    /** The lake's own "not found" for the kind of object the target is (IcebergNames: the same message and context). */
    private static CatalogException notFound(AccessRules.Hidden hidden, ObjectPath target) {
        List<String> ids = target.ids();
        if (ids.size() == 1) {
            return new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "No such catalog").with("catalog", ids.get(0));
        }
        if (hidden == AccessRules.Hidden.NAMESPACE) {
            return IcebergNames.noSuchNamespace(
                    Namespace.of(ids.subList(1, ids.size()).toArray(String[]::new)));
        }
        TableIdentifier identifier = TableIdentifier.of(
                Namespace.of(ids.subList(1, ids.size() - 1).toArray(String[]::new)), ids.get(ids.size() - 1));
        return hidden == AccessRules.Hidden.VIEW
                ? IcebergNames.noSuchView(identifier)
                : IcebergNames.noSuchTable(identifier);
    }

    // ---- the grants, read once per change

    /** The roles and grants at the newest vid. */
    public GrantSet current() {
        CatalogService catalog = service.get();
        long last = catalog.lastVid();
        Cached known = cached;
        if (known != null && known.service == catalog && known.vid == last) {
            return known.grants;
        }
        long generation = catalog.get(Grants.GRANTS_AREA, ReadPoint.vid(last))
                .filter(ObjectType.GRANTS_AREA::isTypeOf)
                .map(object -> GrantsAreaEntry.decode(object.value()).generation())
                .orElse(-1L);
        GrantSet grants = known != null && known.service == catalog && known.grants.generation() == generation
                ? known.grants
                : load(catalog, ReadPoint.vid(last));
        cached = new Cached(catalog, last, grants);
        return grants;
    }

    /**
     * The roles and grants at {@code point}, read in one read-only transaction by a runner of its own (the server's
     * own read, which no authorizer checks: it is what checks).
     */
    static GrantSet load(CatalogService catalog, ReadPoint point) {
        return new TransactionRunner(() -> catalog, Authorizer.allowAll())
                .read(
                        Access.of(Principal.SYSTEM, Action.MANAGE_GRANTS, Grants.GRANTS_AREA),
                        point,
                        GrantsAuthorizer::read);
    }

    /** The roles and grants {@code txn} sees. */
    static GrantSet read(LakeTransaction txn) {
        long generation = txn.read(Grants.GRANTS_AREA)
                .filter(ObjectType.GRANTS_AREA::isTypeOf)
                .map(object -> GrantsAreaEntry.decode(object.value()).generation())
                .orElse(-1L);
        Map<String, Set<String>> members = new HashMap<>();
        if (ObjectType.SYSTEM_AREA.isTypeOf(txn.read(Grants.ROLES_AREA))) {
            for (CatalogObject role : txn.children(Grants.ROLES_AREA, ObjectType.ROLE)) {
                String name = RoleEntry.decode(role.value()).name();
                Set<String> names = new HashSet<>();
                for (CatalogObject member : txn.children(role.path(), ObjectType.ROLE_MEMBER)) {
                    names.add(RoleMemberEntry.decode(member.value()).principal());
                }
                members.put(name, names);
            }
        }
        Map<String, List<GrantSet.Grant>> toRoles = new HashMap<>();
        Map<String, List<GrantSet.Grant>> toPrincipals = new HashMap<>();
        if (generation >= 0) {
            for (CatalogObject object : txn.children(Grants.GRANTS_AREA, ObjectType.GRANT)) {
                GrantEntry entry = GrantEntry.decode(object.value());
                Privilege privilege;
                try {
                    privilege = Privilege.parse(entry.privilege());
                } catch (CatalogException e) {
                    LOG.warn("Skipping grant {} of an unknown privilege {}", object.path(), entry.privilege());
                    continue;
                }
                GrantSet.Grant grant = new GrantSet.Grant(privilege, entry.on());
                (GrantEntry.ROLE.equals(entry.granteeKind()) ? toRoles : toPrincipals)
                        .computeIfAbsent(entry.grantee(), key -> new ArrayList<>())
                        .add(grant);
            }
        }
        return new GrantSet(generation, members, toRoles, toPrincipals);
    }
}
