package io.treecat.rest.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.BearerTokens;
import io.treecat.lakehouse.auth.BuiltInPrincipals;
import io.treecat.lakehouse.auth.TokenVerifier;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.util.ArrayList;
import java.util.List;

/** Everything authentication registers with Jersey; the server registers each component. */
public final class RestAuth {
    private RestAuth() {}

    /**
     * @param enabled whether a bearer token is required on every route but the token endpoint ({@code auth.enabled});
     *     the token endpoint and the principal routes are served either way
     */
    public static List<Object> components(
            boolean enabled, BuiltInPrincipals principals, BearerTokens tokens, OAuthTokensResource.Events events) {
        return components(enabled, principals, tokens, tokens, events);
    }

    /**
     * @param tokens the server's own tokens: the token endpoint issues them, and its token exchange takes only them
     *     (an external issuer's token is not exchanged for one of ours)
     * @param verifier what the filter checks every other request's token with (the server's one {@link
     *     TokenVerifier}: its own tokens and the configured OpenID Connect issuers)
     */
    public static List<Object> components(
            boolean enabled,
            BuiltInPrincipals principals,
            BearerTokens tokens,
            TokenVerifier verifier,
            OAuthTokensResource.Events events) {
        requireNonNull(principals, "principals is null");
        requireNonNull(tokens, "tokens is null");
        requireNonNull(verifier, "verifier is null");
        List<Object> components = new ArrayList<>();
        components.add(new OAuthTokensResource(principals, tokens, events));
        components.add(new PrincipalsResource(principals));
        // Exactly one filter binds each request's principal: anonymous exists only when authentication is off.
        components.add(
                new AuthenticationFeature(enabled ? new BearerAuthFilter(verifier) : new AnonymousPrincipalFilter()));
        return List.copyOf(components);
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
