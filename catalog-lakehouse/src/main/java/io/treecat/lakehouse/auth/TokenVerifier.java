package io.treecat.lakehouse.auth;

/**
 * The one check of a bearer token, which every authenticated listener calls (the REST filter, the gRPC interceptor):
 * the principal the token proves, or an {@link InvalidTokenException} saying, in fixed words, why it proves nothing.
 * Never another exception for a bad token, and never the token in a message.
 *
 * <p>The server's own HS256 tokens ({@link BearerTokens}) are one implementation; {@link TokenAuthenticator} is the
 * one the server wires: it routes each token by its issuer to those or to a configured OpenID Connect issuer, and
 * caches what it verified.
 */
@FunctionalInterface
public interface TokenVerifier {
    /**
     * @throws InvalidTokenException saying which rule failed
     */
    Principal verify(String token);
}
