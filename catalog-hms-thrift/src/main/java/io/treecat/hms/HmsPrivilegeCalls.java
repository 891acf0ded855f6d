package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.Privilege;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hive.metastore.api.GrantRevokePrivilegeRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokePrivilegeResponse;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PrincipalPrivilegeSet;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeBag;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;
import org.apache.thrift.TException;

/**
 * Hive's privilege calls ({@code grant_privileges}, {@code revoke_privileges}, {@code grant_revoke_privileges},
 * {@code list_privileges}, {@code get_privilege_set}) on TreeCat's grants: every one through the lakehouse's {@link
 * Grants}, so it is versioned and passes {@link Privilege#MANAGE_GRANTS} on its object, as {@code treecat grants}
 * does. The mapping is {@link HmsPrivileges}'s (docs/security.md, "Hive's privilege and role calls").
 */
final class HmsPrivilegeCalls {
    private final HmsCalls calls;
    private final Grants grants;

    HmsPrivilegeCalls(HmsCalls calls, Grants grants) {
        this.calls = requireNonNull(calls, "calls is null");
        this.grants = requireNonNull(grants, "grants is null");
    }

    /** One entry of a bag as TreeCat's grant, with the Hive entry it came from (for messages). */
    private record Entry(HiveObjectPrivilege hive, Grants.GrantInfo grant) {}

    public boolean grant_privileges(PrivilegeBag privileges) throws TException {
        List<Entry> entries = entries(privileges);
        try {
            grants.grantAll(calls.principal(), grantsOf(entries), true);
        } catch (CatalogException e) {
            throw refusal(e, entries, true);
        }
        return true;
    }

    public boolean revoke_privileges(PrivilegeBag privileges) throws TException {
        List<Entry> entries = entries(privileges);
        try {
            grants.revokeAll(calls.principal(), grantsOf(entries));
        } catch (CatalogException e) {
            throw refusal(e, entries, false);
        }
        return true;
    }

    public GrantRevokePrivilegeResponse grant_revoke_privileges(GrantRevokePrivilegeRequest request) throws TException {
        if (request == null) {
            throw new MetaException("No request given");
        }
        if (request.getRequestType() == null) {
            throw new MetaException("Unknown request type null");
        }
        boolean success = switch (request.getRequestType()) {
            case GRANT -> grant_privileges(request.getPrivileges());
            case REVOKE -> {
                if (request.isSetRevokeGrantOption() && request.isRevokeGrantOption()) {
                    throw new MetaException(HmsPrivileges.NO_GRANT_OPTION);
                }
                yield revoke_privileges(request.getPrivileges());
            }
        };
        GrantRevokePrivilegeResponse response = new GrantRevokePrivilegeResponse();
        response.setSuccess(success);
        return response;
    }

    /**
     * The grants on exactly {@code object} (Hive's answer: a table's list does not hold its database's), of the
     * principal named or (name null) of everyone; an object without a type: every grant of the principal that is
     * global or in the catalog the call acts in.
     */
    public List<HiveObjectPrivilege> list_privileges(
            String principalName, PrincipalType principalType, HiveObjectRef object) throws TException {
        if (object == null) {
            throw new MetaException("No object given");
        }
        if (principalName != null && principalType == null) {
            throw new MetaException("No principal type given for " + HmsPrivileges.shorten(principalName));
        }
        if (principalType == PrincipalType.GROUP || !shareable(object)) {
            return List.of();
        }
        ObjectPath on = object.getObjectType() == null ? ObjectPath.ROOT : path(object);
        List<HiveObjectPrivilege> answer = new ArrayList<>();
        for (Grants.StoredGrant stored : grants.listStored(calls.principal(), on, ReadPoint.LATEST)) {
            Grants.GrantInfo grant = stored.grant();
            if (object.getObjectType() != null ? !grant.on().equals(on) : !inCallsCatalog(grant.on())) {
                continue;
            }
            if (!HmsPrivileges.matches(grant.grantee(), principalName, principalType)) {
                continue;
            }
            HiveObjectRef answered = HmsPrivileges.object(grant.on(), calls.names());
            if (answered == null) {
                continue;
            }
            for (String name : HmsPrivileges.hiveNames(grant.privilege())) {
                answer.add(HmsPrivileges.answer(answered, grant.grantee(), name, stored.created()));
            }
        }
        return answer;
    }

    /**
     * What {@code userName} holds on exactly {@code object}: its own grants and those of the roles it holds (Hive's
     * answer); TreeCat has no groups, so none for {@code groupNames}.
     */
    public PrincipalPrivilegeSet get_privilege_set(HiveObjectRef object, String userName, List<String> groupNames)
            throws TException {
        if (object == null) {
            throw new MetaException("No object given");
        }
        if (userName == null) {
            throw new MetaException("No user name given");
        }
        PrincipalPrivilegeSet answer = new PrincipalPrivilegeSet();
        answer.setUserPrivileges(new HashMap<>());
        answer.setRolePrivileges(new HashMap<>());
        if (object.getObjectType() == null || !shareable(object)) {
            return answer;
        }
        ObjectPath on = path(object);
        Map<String, Long> created = new HashMap<>();
        for (Grants.StoredGrant stored : grants.listStored(calls.principal(), on, ReadPoint.LATEST)) {
            created.put(key(stored.grant()), stored.created());
        }
        Map<String, List<PrivilegeGrantInfo>> users = new LinkedHashMap<>();
        Map<String, List<PrivilegeGrantInfo>> roles = new LinkedHashMap<>();
        for (Grants.Holder holder : grants.whoCan(calls.principal(), on, ReadPoint.LATEST, Set.of())) {
            if (!userName.equals(holder.principal()) || !holder.on().equals(on)) {
                continue;
            }
            Grants.Grantee grantee =
                    holder.role() == null ? Grants.Grantee.principal(userName) : Grants.Grantee.role(holder.role());
            long time = created.getOrDefault(key(new Grants.GrantInfo(grantee, holder.privilege(), on)), 0L);
            Map<String, List<PrivilegeGrantInfo>> into = holder.role() == null ? users : roles;
            for (String name : HmsPrivileges.hiveNames(holder.privilege())) {
                into.computeIfAbsent(grantee.name(), ignored -> new ArrayList<>())
                        .add(new PrivilegeGrantInfo(name, (int) (time / 1000), "", PrincipalType.USER, false));
            }
        }
        answer.setUserPrivileges(users);
        answer.setRolePrivileges(roles);
        return answer;
    }

    // ---- the mapping of requests

    /**
     * Whether a grant of an object-less listing belongs to this call: global, or in the catalog the call acts in (Hive
     * clients name one catalog per call, and answers carry its name).
     */
    private boolean inCallsCatalog(ObjectPath on) {
        return on.isRoot() || on.ids().get(0).equals(calls.catalog());
    }

    private static String key(Grants.GrantInfo grant) {
        return grant.grantee().kind() + '\0' + grant.grantee().name() + '\0' + grant.privilege() + '\0' + grant.on();
    }

    /** Whether TreeCat can hold grants on {@code object}'s type (none on partitions, columns, data connectors). */
    private static boolean shareable(HiveObjectRef object) {
        return object.getObjectType() == null
                || switch (object.getObjectType()) {
                    case GLOBAL, DATABASE, TABLE -> true;
                    case PARTITION, COLUMN, DATACONNECTOR -> false;
                };
    }

    /** The TreeCat path of a global, database or table object, in the catalog its {@code catName} names. */
    private ObjectPath path(HiveObjectRef object) throws TException {
        return switch (object.getObjectType()) {
            case GLOBAL -> ObjectPath.ROOT;
            case DATABASE -> ObjectPath.of(catalog(object), database(object));
            case TABLE -> {
                if (object.getObjectName() == null || object.getObjectName().isEmpty()) {
                    throw new MetaException("No table name given in the object");
                }
                yield ObjectPath.of(catalog(object), database(object), HmsNames.normalize(object.getObjectName()));
            }
            default -> throw new MetaException("Not a global, database or table object: " + object.getObjectType());
        };
    }

    private String catalog(HiveObjectRef object) throws TException {
        String named = calls.names().treecatCatalog(object.getCatName());
        String fromDatabase = calls.names().treecatCatalog(HmsNames.catalogOf(object.getDbName()));
        return fromDatabase != null ? fromDatabase : named != null ? named : calls.catalog();
    }

    private String database(HiveObjectRef object) throws TException {
        String db = object.getDbName() == null ? null : calls.names().database(object.getDbName());
        if (db == null || db.isEmpty()) {
            throw new MetaException("No database name given in the object");
        }
        return db;
    }

    private List<Entry> entries(PrivilegeBag privileges) throws TException {
        if (privileges == null) {
            throw new MetaException("No privileges given");
        }
        List<Entry> entries = new ArrayList<>();
        for (HiveObjectPrivilege privilege :
                privileges.getPrivileges() == null ? List.<HiveObjectPrivilege>of() : privileges.getPrivileges()) {
            if (privilege == null) {
                throw new MetaException("A privilege of the bag is null");
            }
            HmsPrivileges.checkGrantable(privilege.getHiveObject());
            PrivilegeGrantInfo info = privilege.getGrantInfo();
            if (info == null) {
                throw new MetaException("No grant info given for the privilege");
            }
            if (info.isGrantOption()) {
                throw new MetaException(HmsPrivileges.NO_GRANT_OPTION);
            }
            Grants.Grantee grantee = HmsPrivileges.grantee(privilege.getPrincipalName(), privilege.getPrincipalType());
            entries.add(new Entry(
                    privilege,
                    new Grants.GrantInfo(
                            grantee, HmsPrivileges.privilege(info.getPrivilege()), path(privilege.getHiveObject()))));
        }
        return entries;
    }

    private static List<Grants.GrantInfo> grantsOf(List<Entry> entries) {
        return entries.stream().map(Entry::grant).toList();
    }

    /** A refusal of the lakehouse as Hive's metastore words it, naming the entry of the bag it is about. */
    private static TException refusal(CatalogException e, List<Entry> entries, boolean granting) {
        ErrorCode code = e.code();
        if (code == ErrorCode.ROLE_NOT_FOUND) {
            return new MetaException("Role " + e.context().get("role") + " does not exist");
        }
        if (code == ErrorCode.OBJECT_NOT_FOUND && granting) {
            Object path = e.context().get("path");
            for (Entry entry : entries) {
                if (entry.grant().on().toString().equals(path)) {
                    HiveObjectRef object = entry.hive().getHiveObject();
                    String catalog = object.isSetCatName() ? object.getCatName() : HmsNames.HIVE_CATALOG;
                    return new MetaException(
                            switch (object.getObjectType()) {
                                case DATABASE -> "There is no database " + catalog + "." + object.getDbName();
                                default ->
                                    "There is no table " + catalog + "." + object.getDbName() + "."
                                            + object.getObjectName();
                            });
                }
            }
        }
        if (code == ErrorCode.NAME_ALREADY_EXISTS || code == ErrorCode.OBJECT_NOT_FOUND) {
            for (Entry entry : entries) {
                Grants.GrantInfo grant = entry.grant();
                if (grant.privilege().name().equals(e.context().get("privilege"))
                        && grant.on().toString().equals(e.context().get("on"))
                        && (grant.grantee().kind() + " " + grant.grantee().name())
                                .equals(e.context().get("grantee"))) {
                    String privilege = entry.hive().getGrantInfo().getPrivilege();
                    String object = HmsPrivileges.describe(entry.hive().getHiveObject());
                    return new MetaException(
                            granting
                                    ? privilege + " is already granted on " + object
                                    : "No grant (" + privilege + ") found on " + object);
                }
            }
        }
        return HmsErrors.map(granting ? "grant_privileges" : "revoke_privileges", e);
    }
}
