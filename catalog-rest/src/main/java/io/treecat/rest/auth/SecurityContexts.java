package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Principal;
import jakarta.ws.rs.core.SecurityContext;

/** A request's {@code SecurityContext} once its bearer token proved who it is. */
final class SecurityContexts {
    private SecurityContexts() {}

    /** The principal as {@link SecurityContext#getUserPrincipal()} holds it. */
    record Authenticated(Principal principal) implements java.security.Principal {
        Authenticated {
            requireNonNull(principal, "principal is null");
        }

        @Override
        public String getName() {
            return principal.name();
        }
    }

    static SecurityContext of(Principal principal, boolean secure) {
        Authenticated user = new Authenticated(principal);
        return new SecurityContext() {
            @Override
            public java.security.Principal getUserPrincipal() {
                return user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false; // roles and grants are the next slice of issue 18
            }

            @Override
            public boolean isSecure() {
                return secure;
            }

            @Override
            public String getAuthenticationScheme() {
                return "Bearer";
            }
        };
    }
}
