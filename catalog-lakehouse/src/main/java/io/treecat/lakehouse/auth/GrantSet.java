package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.treecat.core.model.ObjectPath;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Roles, their members and grants as they were at one vid: what {@link GrantsAuthorizer} decides with. Immutable;
 * each principal's effective grants are gathered once and kept.
 */
public final class GrantSet {
    /** One grant as the decision needs it. */
    public record Grant(Privilege privilege, ObjectPath on) {
        public Grant {
            requireNonNull(privilege, "privilege is null");
            requireNonNull(on, "on is null");
        }
    }

    static final GrantSet EMPTY = new GrantSet(-1, Map.of(), Map.of(), Map.of());

    private final long generation;
    /** Role → its members' names. */
    private final Map<String, Set<String>> members;

    private final Map<String, List<Grant>> toRoles;
    private final Map<String, List<Grant>> toPrincipals;
    private final Map<String, List<Grant>> effective = new ConcurrentHashMap<>();

    GrantSet(
            long generation,
            Map<String, Set<String>> members,
            Map<String, List<Grant>> toRoles,
            Map<String, List<Grant>> toPrincipals) {
        this.generation = generation;
        ImmutableMap.Builder<String, Set<String>> copy = ImmutableMap.builder();
        members.forEach((role, names) -> copy.put(role, ImmutableSet.copyOf(names)));
        this.members = copy.buildOrThrow();
        this.toRoles = copyLists(toRoles);
        this.toPrincipals = copyLists(toPrincipals);
    }

    private static Map<String, List<Grant>> copyLists(Map<String, List<Grant>> map) {
        ImmutableMap.Builder<String, List<Grant>> copy = ImmutableMap.builder();
        map.forEach((key, list) -> copy.put(key, ImmutableList.copyOf(list)));
        return copy.buildOrThrow();
    }

    /** The grants' area's change counter when this was read; -1 before any role or grant existed. */
    public long generation() {
        return generation;
    }

    /** The roles {@code principal} holds. */
    public Set<String> rolesOf(String principal) {
        ImmutableSet.Builder<String> roles = ImmutableSet.builder();
        members.forEach((role, names) -> {
            if (names.contains(principal)) {
                roles.add(role);
            }
        });
        return roles.build();
    }

    /** The grants {@code principal} holds, directly and through its roles. */
    public List<Grant> grantsOf(String principal) {
        return effective.computeIfAbsent(principal, name -> {
            List<Grant> all = new ArrayList<>(toPrincipals.getOrDefault(name, List.of()));
            for (String role : rolesOf(name)) {
                all.addAll(toRoles.getOrDefault(role, List.of()));
            }
            return ImmutableList.copyOf(all);
        });
    }

    /**
     * The grants {@code principal} holds: as {@link #grantsOf(String)}, plus those of the roles its credential asserted
     * (an external issuer's roles claim, {@code <issuer>:<role>}): a role granted to is a role held, whether the tree
     * or the identity provider says the principal holds it.
     */
    public List<Grant> grantsOf(Principal principal) {
        List<Grant> stored = grantsOf(principal.name());
        if (principal.roles().isEmpty()) {
            return stored;
        }
        List<Grant> all = new ArrayList<>(stored);
        for (String role : principal.roles()) {
            all.addAll(toRoles.getOrDefault(role, List.of()));
        }
        return all;
    }

    /** Whether {@code principal} holds {@code privilege} on {@code path}: granted there or on an ancestor. */
    public boolean holds(String principal, Privilege privilege, ObjectPath path) {
        return holds(new Principal(principal), privilege, path);
    }

    /** As {@link #holds(String, Privilege, ObjectPath)}, with the roles {@code principal}'s credential asserted. */
    public boolean holds(Principal principal, Privilege privilege, ObjectPath path) {
        for (Grant grant : grantsOf(principal)) {
            if (grant.privilege().implies(privilege) && grant.on().isAncestorOrSelf(path)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code principal} may see the container at {@code path} (a catalog or namespace): it holds any privilege
     * on it, on an ancestor (inherited), or on anything below it (so the way to a table it may use is visible).
     */
    public boolean sees(String principal, ObjectPath path) {
        return sees(new Principal(principal), path);
    }

    /** As {@link #sees(String, ObjectPath)}, with the roles {@code principal}'s credential asserted. */
    public boolean sees(Principal principal, ObjectPath path) {
        for (Grant grant : grantsOf(principal)) {
            if (grant.on().isAncestorOrSelf(path) || path.isAncestorOrSelf(grant.on())) {
                return true;
            }
        }
        return false;
    }

    /** Every role and its members. */
    public Map<String, Set<String>> roles() {
        return members;
    }

    /** Grants to roles, by role. */
    public Map<String, List<Grant>> roleGrants() {
        return toRoles;
    }

    /** Grants to principals directly, by principal. */
    public Map<String, List<Grant>> principalGrants() {
        return toPrincipals;
    }
}
