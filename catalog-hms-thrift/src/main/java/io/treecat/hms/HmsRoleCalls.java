package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.Privilege;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.hive.metastore.api.GetPrincipalsInRoleRequest;
import org.apache.hadoop.hive.metastore.api.GetPrincipalsInRoleResponse;
import org.apache.hadoop.hive.metastore.api.GetRoleGrantsForPrincipalRequest;
import org.apache.hadoop.hive.metastore.api.GetRoleGrantsForPrincipalResponse;
import org.apache.hadoop.hive.metastore.api.GrantRevokeRoleRequest;
import org.apache.hadoop.hive.metastore.api.GrantRevokeRoleResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.RolePrincipalGrant;
import org.apache.thrift.TException;

/**
 * Hive's role calls on TreeCat's roles ({@link Grants}: versioned, each passing {@link Privilege#MANAGE_GRANTS} on the
 * root, as {@code treecat roles} does). Hive's built-in {@code public} (every user's) has no TreeCat counterpart and is
 * refused on writes; its {@code admin} is {@link Privilege#ALL} on the root by a grant (docs/security.md, "Hive's
 * privilege and role calls"). TreeCat roles hold principals, not roles, and there are no groups.
 */
final class HmsRoleCalls {
    private final HmsCalls calls;
    private final Grants grants;

    HmsRoleCalls(HmsCalls calls, Grants grants) {
        this.calls = requireNonNull(calls, "calls is null");
        this.grants = requireNonNull(grants, "grants is null");
    }

    public boolean create_role(Role role) throws TException {
        if (role == null) {
            throw new MetaException("No role given");
        }
        String name = roleName(role.getRoleName());
        if (name.equals(HmsPrivileges.PUBLIC)) {
            throw new MetaException("public role implicitly exists. It can't be created.");
        }
        if (name.equals(HmsPrivileges.ADMIN)) {
            throw new MetaException("Role admin already exists.");
        }
        try {
            grants.createRole(calls.principal(), name);
        } catch (CatalogException e) {
            if (e.code() == ErrorCode.NAME_ALREADY_EXISTS) {
                throw new MetaException("Role " + name + " already exists.");
            }
            throw e;
        }
        return true;
    }

    public boolean drop_role(String roleName) throws TException {
        String name = roleName(roleName);
        if (name.equals(HmsPrivileges.PUBLIC) || name.equals(HmsPrivileges.ADMIN)) {
            throw new MetaException("public,admin roles can't be dropped.");
        }
        try {
            grants.dropRole(calls.principal(), name);
        } catch (CatalogException e) {
            if (e.code() == ErrorCode.ROLE_NOT_FOUND) {
                throw new MetaException("Role " + HmsPrivileges.shorten(name) + " does not exist");
            }
            throw e;
        }
        return true;
    }

    /** TreeCat's roles and Hive's two built-in ones, sorted. */
    public List<String> get_role_names() throws TException {
        TreeSet<String> names = new TreeSet<>(List.of(HmsPrivileges.ADMIN, HmsPrivileges.PUBLIC));
        for (Grants.RoleInfo role : roles()) {
            names.add(role.name());
        }
        return List.copyOf(names);
    }

    /** The roles a user holds: its TreeCat roles, {@code admin} when it holds ALL on the root, then {@code public}. */
    public List<Role> list_roles(String principalName, PrincipalType principalType) throws TException {
        if (principalName == null) {
            throw new MetaException("No principal name given");
        }
        if (principalType == null) {
            throw new MetaException("No principal type given for " + HmsPrivileges.shorten(principalName));
        }
        List<Role> answer = new ArrayList<>();
        if (principalType == PrincipalType.USER) {
            for (Grants.RoleInfo role : roles()) {
                if (role.members().contains(principalName)) {
                    answer.add(new Role(role.name(), (int) (role.created() / 1000), null));
                }
            }
        }
        if (principalType != PrincipalType.GROUP && holdsAll(principalName, principalType)) {
            answer.add(new Role(HmsPrivileges.ADMIN, 0, null));
        }
        if (principalType == PrincipalType.USER) {
            answer.add(new Role(HmsPrivileges.PUBLIC, 0, HmsPrivileges.PUBLIC));
        }
        return answer;
    }

    public boolean grant_role(
            String roleName,
            String principalName,
            PrincipalType principalType,
            String grantor,
            PrincipalType grantorType,
            boolean grantOption)
            throws TException {
        String role = roleName(roleName);
        if (role.equals(HmsPrivileges.PUBLIC)) {
            throw new MetaException(
                    "No user can be added to public. Since all users implicitly belong to public role.");
        }
        if (grantOption) {
            throw new MetaException(HmsPrivileges.NO_GRANT_OPTION);
        }
        if (role.equals(HmsPrivileges.ADMIN)) {
            Grants.Grantee grantee = adminGrantee(principalName, principalType);
            try {
                grants.grantAll(
                        calls.principal(),
                        List.of(new Grants.GrantInfo(grantee, Privilege.ALL, ObjectPath.ROOT)),
                        true);
            } catch (CatalogException e) {
                if (e.code() == ErrorCode.NAME_ALREADY_EXISTS) {
                    throw new MetaException("Principal " + principalName + " already has the role admin");
                }
                throw roleRefusal(e, role);
            }
            return true;
        }
        String principal = member(principalName, principalType);
        boolean assigned;
        try {
            assigned = grants.assign(calls.principal(), role, principal);
        } catch (CatalogException e) {
            throw roleRefusal(e, role);
        }
        if (!assigned) {
            throw new MetaException("Principal " + principal + " already has the role " + role);
        }
        return true;
    }

    public boolean revoke_role(String roleName, String principalName, PrincipalType principalType) throws TException {
        String role = roleName(roleName);
        if (role.equals(HmsPrivileges.PUBLIC)) {
            throw new MetaException("public role can't be revoked.");
        }
        try {
            if (role.equals(HmsPrivileges.ADMIN)) {
                grants.revokeAll(
                        calls.principal(),
                        List.of(new Grants.GrantInfo(
                                adminGrantee(principalName, principalType), Privilege.ALL, ObjectPath.ROOT)));
            } else {
                grants.unassign(calls.principal(), role, member(principalName, principalType));
            }
        } catch (CatalogException e) {
            if (e.code() == ErrorCode.OBJECT_NOT_FOUND) {
                throw new MetaException(
                        "Principal " + HmsPrivileges.shorten(principalName) + " does not have the role " + role);
            }
            throw roleRefusal(e, role);
        }
        return true;
    }

    /** Hive 4's form of {@link #grant_role} and {@link #revoke_role}; a grant or revoke of the admin option is refused. */
    public GrantRevokeRoleResponse grant_revoke_role(GrantRevokeRoleRequest request) throws TException {
        if (request == null) {
            throw new MetaException("No request given");
        }
        if (request.getRequestType() == null) {
            throw new MetaException("Unknown request type null");
        }
        boolean grantOption = request.isSetGrantOption() && request.isGrantOption();
        if (grantOption) {
            throw new MetaException(HmsPrivileges.NO_GRANT_OPTION);
        }
        boolean success = switch (request.getRequestType()) {
            case GRANT ->
                grant_role(
                        request.getRoleName(),
                        request.getPrincipalName(),
                        request.getPrincipalType(),
                        request.getGrantor(),
                        request.getGrantorType(),
                        false);
            case REVOKE -> revoke_role(request.getRoleName(), request.getPrincipalName(), request.getPrincipalType());
        };
        GrantRevokeRoleResponse response = new GrantRevokeRoleResponse();
        response.setSuccess(success);
        return response;
    }

    /** A role's members; {@code admin}'s are the principals and roles holding ALL on the root by a grant. */
    public GetPrincipalsInRoleResponse get_principals_in_role(GetPrincipalsInRoleRequest request) throws TException {
        if (request == null || request.getRoleName() == null) {
            throw new MetaException("No role name given");
        }
        String role = request.getRoleName();
        List<RolePrincipalGrant> members = new ArrayList<>();
        if (role.equals(HmsPrivileges.ADMIN)) {
            for (Grants.GrantInfo grant : allOnRoot()) {
                members.add(membership(role, grant.grantee().name(), HmsPrivileges.principalType(grant.grantee())));
            }
        } else {
            for (Grants.RoleInfo info : roles()) {
                if (info.name().equals(role)) {
                    for (String member : info.members()) {
                        members.add(membership(role, member, PrincipalType.USER));
                    }
                }
            }
        }
        return new GetPrincipalsInRoleResponse(members);
    }

    /** The roles a principal holds, {@code admin} when it holds ALL on the root by a grant, and (users) {@code public}. */
    public GetRoleGrantsForPrincipalResponse get_role_grants_for_principal(GetRoleGrantsForPrincipalRequest request)
            throws TException {
        if (request == null || request.getPrincipal_name() == null) {
            throw new MetaException("No principal name given");
        }
        if (request.getPrincipal_type() == null) {
            throw new MetaException("No principal type given");
        }
        String name = request.getPrincipal_name();
        List<RolePrincipalGrant> answer = new ArrayList<>();
        for (Role role : list_roles(name, request.getPrincipal_type())) {
            answer.add(membership(role.getRoleName(), name, request.getPrincipal_type()));
        }
        return new GetRoleGrantsForPrincipalResponse(answer);
    }

    // ---- helpers

    private List<Grants.RoleInfo> roles() {
        return grants.listRoles(calls.principal(), ReadPoint.LATEST);
    }

    /** The grants of ALL on the root: Hive's admin role. */
    private List<Grants.GrantInfo> allOnRoot() {
        return grants.list(calls.principal(), ObjectPath.ROOT, ReadPoint.LATEST).stream()
                .filter(grant -> grant.on().isRoot() && grant.privilege() == Privilege.ALL)
                .toList();
    }

    private boolean holdsAll(String name, PrincipalType type) {
        return allOnRoot().stream().anyMatch(grant -> HmsPrivileges.matches(grant.grantee(), name, type));
    }

    private static RolePrincipalGrant membership(String role, String principal, PrincipalType type) {
        // TreeCat keeps no grantor or time for a membership; Hive answers public's the same way.
        return new RolePrincipalGrant(role, principal, type, false, 0, null, null);
    }

    private static String roleName(String name) throws MetaException {
        if (name == null) {
            throw new MetaException("No role name given");
        }
        return name;
    }

    /** The principal a role is granted to: a user; not a group or a role. */
    private static String member(String principalName, PrincipalType principalType) throws MetaException {
        if (principalName == null) {
            throw new MetaException("No principal name given");
        }
        if (principalType == null) {
            throw new MetaException("No principal type given for " + HmsPrivileges.shorten(principalName));
        }
        return switch (principalType) {
            case USER -> principalName;
            case ROLE -> throw new MetaException(HmsPrivileges.NO_NESTED_ROLES);
            case GROUP -> throw new MetaException(HmsPrivileges.NO_GROUPS);
        };
    }

    /** Whom the admin role goes to: a user or a role (ALL on the root, granted to it). */
    private static Grants.Grantee adminGrantee(String principalName, PrincipalType principalType) throws MetaException {
        if (principalType == PrincipalType.GROUP) {
            throw new MetaException(HmsPrivileges.NO_GROUPS);
        }
        return HmsPrivileges.grantee(principalName, principalType);
    }

    private static TException roleRefusal(CatalogException e, String role) {
        if (e.code() == ErrorCode.ROLE_NOT_FOUND) {
            return new MetaException(HmsPrivileges.shorten(role) + " role can not be found.");
        }
        return HmsErrors.map("grant_role", e);
    }
}
