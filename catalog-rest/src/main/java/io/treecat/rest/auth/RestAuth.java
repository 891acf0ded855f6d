package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.BearerTokens;
import io.treecat.lakehouse.auth.BuiltInPrincipals;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.auth.TokenVerifier;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Everything authentication registers with Jersey; the server registers each component. */
public final class RestAuth {
    private RestAuth() {}

    /**
     * @param enabled whether a bearer token is required on every route but the token endpoint ({@code auth.enabled});
     *     the token endpoint and the principal routes are served either way
     */
    public static List<Object> components(
            boolean enabled, BuiltInPrincipals principals, BearerTokens tokens, OAuthTokensResource.Events events) {
        return components(enabled, principals, tokens, tokens, events, null, null);
    }

    /**
     * @param tokens the server's own tokens: the token endpoint issues them, and its token exchange takes only them
     *     (an external issuer's token is not exchanged for one of ours)
     * @param verifier what the filter checks every other request's token with (the server's one {@link
     *     TokenVerifier}: its own tokens and the configured OpenID Connect issuers)
     * @param grants the roles and grants the management routes change; null: no such routes
     * @param authorizer the grants' authorizer when they are in force ({@code auth.enabled}); null: none, and the
     *     native data routes are open to every authenticated caller
     */
    public static List<Object> components(
            boolean enabled,
            BuiltInPrincipals principals,
            BearerTokens tokens,
            TokenVerifier verifier,
            OAuthTokensResource.Events events,
            Grants grants,
            GrantsAuthorizer authorizer) {
        requireNonNull(principals, "principals is null");
        requireNonNull(tokens, "tokens is null");
        requireNonNull(verifier, "verifier is null");
        List<Object> components = new ArrayList<>();
        components.add(new OAuthTokensResource(principals, tokens, events));
        components.add(new PrincipalsResource(principals));
        if (grants != null) {
            components.add(new GrantsResource(grants, () -> authorizer == null ? Set.of() : authorizer.admins()));
        }
        // Exactly one filter binds each request's principal: anonymous exists only when authentication is off.
        components.add(
                new AuthenticationFeature(enabled ? new BearerAuthFilter(verifier) : new AnonymousPrincipalFilter()));
        if (authorizer != null) {
            components.add(new AuthorizationFeature(new NativeAccessFilter(authorizer)));
        }
        return List.copyOf(components);
    }

    /** Registers the native routes' check at {@code Priorities.AUTHORIZATION}: after authentication, before the rest. */
    private static final class AuthorizationFeature implements Feature {
        private final NativeAccessFilter filter;

        AuthorizationFeature(NativeAccessFilter filter) {
            this.filter = filter;
        }

        @Override
        public boolean configure(FeatureContext context) {
            context.register(filter, Priorities.AUTHORIZATION);
            return true;
        }
    }

    /** Registers a filter at {@code Priorities.AUTHENTICATION}: before the body limits and every other filter. */
    private static final class AuthenticationFeature implements Feature {
        private final Object filter;

        AuthenticationFeature(Object filter) {
            this.filter = filter;
        }

        @Override
        public boolean configure(FeatureContext context) {
            context.register(filter, Priorities.AUTHENTICATION);
            return true;
        }
    }
}
