package io.treecat.lakehouse.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The one token check against a real OpenID Connect provider (mock-oauth2-server on loopback): discovery, the JWKS,
 * rotation and every kind of bad token, beside the server's own HS256 tokens; and the cache of verified tokens.
 */
class TestTokenAuthenticator {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final String AUDIENCE = "treecat";

    /**
     * The provider's connect and read timeout: generous, since a loaded CI machine once took over 2 s to answer the
     * first discovery and the test saw "unavailable"; a provider that is down refuses the connection at once.
     */
    private static final Duration PROVIDER_TIMEOUT = Duration.ofSeconds(20);

    private final MutableClock clock = new MutableClock(Instant.now());
    private OidcTestIssuer idp;
    private String issuer;

    @BeforeEach
    void start() {
        idp = OidcTestIssuer.start();
        issuer = idp.issuer("default");
    }

    @AfterEach
    void stop() {
        idp.close();
    }

    private OidcIssuer config(String issuer, Optional<String> rolesClaim, String principalClaim) {
        return new OidcIssuer(
                "idp",
                issuer,
                OidcIssuer.defaultDiscovery(issuer),
                AUDIENCE,
                principalClaim,
                rolesClaim,
                OidcIssuer.DEFAULT_ALGORITHMS,
                Duration.ofSeconds(30),
                PROVIDER_TIMEOUT,
                Duration.ofSeconds(5));
    }

    private BearerTokens builtIn() {
        return new BearerTokens(KEY, "treecat", AUDIENCE, Duration.ofMinutes(10), clock, new SecureRandom());
    }

    private TokenAuthenticator authenticator(OidcIssuer... issuers) {
        return new TokenAuthenticator(builtIn(), List.of(issuers), Duration.ofMinutes(1), 1000, clock);
    }

    private TokenAuthenticator authenticator() {
        return authenticator(config(issuer, Optional.of("realm_access.roles"), "sub"));
    }

    private static void assertRefused(TokenVerifier verifier, String token, String message) {
        assertThatThrownBy(() -> verifier.verify(token))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessage(message);
    }

    @Test
    void aValidTokenNamesItsPrincipalAndRolesUnderTheIssuersName() {
        String token = idp.token(
                "default",
                "alice",
                AUDIENCE,
                Map.of("realm_access", Map.of("roles", List.of("reader", "writer"))),
                3600);

        Principal principal = authenticator().verify(token);

        assertThat(principal.name()).isEqualTo("idp:alice");
        assertThat(principal.roles()).containsExactlyInAnyOrder("idp:reader", "idp:writer");
    }

    @Test
    void thePrincipalAndRolesClaimsAreConfigurable() {
        TokenAuthenticator verifier =
                authenticator(config(issuer, Optional.of("https://example.com/groups"), "preferred_username"));
        String token = idp.token(
                "default",
                "0b5e-uuid",
                AUDIENCE,
                Map.of("preferred_username", "alice@example.com", "https://example.com/groups", "analysts"),
                3600);

        Principal principal = verifier.verify(token);

        assertThat(principal.name()).isEqualTo("idp:alice@example.com");
        assertThat(principal.roles()).containsExactly("idp:analysts");
        assertThat(authenticator().verify(idp.token("default", "bob", AUDIENCE)).roles())
                .as("no roles claim in the token: no roles")
                .isEmpty();
    }

    @Test
    void theServersOwnTokensStillVerifyBesideTheIssuer() {
        String own = builtIn().issue(new Principal("etl")).token();

        assertThat(authenticator().verify(own)).isEqualTo(new Principal("etl"));
    }

    @Test
    void aWrongAudienceIsRefused() {
        assertRefused(
                authenticator(),
                idp.token("default", "alice", "another-api"),
                "The token's audience is not this server");
    }

    @Test
    void anIssuerNotConfiguredIsRefusedThoughItsSignatureIsGood() {
        // The same provider, another issuer id: a real issuer, with a key set, that nobody configured.
        assertRefused(authenticator(), idp.token("other", "alice", AUDIENCE), "The token's issuer is not trusted");
    }

    @Test
    void anExpiredOrNotYetValidTokenIsRefused() {
        assertRefused(
                authenticator(), idp.token("default", "alice", AUDIENCE, Map.of(), -120), "The token has expired");
        assertRefused(
                authenticator(),
                idp.token(
                        "default",
                        "alice",
                        AUDIENCE,
                        Map.of("nbf", Date.from(Instant.now().plusSeconds(600))),
                        3600),
                "The token is not valid yet");
    }

    @Test
    void aTamperedTokenIsRefused() throws Exception {
        SignedJWT token = SignedJWT.parse(idp.token("default", "alice", AUDIENCE));
        JWTClaimsSet changed = new JWTClaimsSet.Builder(token.getJWTClaimsSet())
                .subject("admin")
                .build();
        String forged = token.getHeader().toBase64URL() + "." + Base64URL.encode(changed.toString()) + "."
                + token.getSignature();

        assertRefused(authenticator(), forged, "The token's signature is not valid");
    }

    @Test
    void unsignedAndSymmetricTokensAreRefusedBeforeAnyKeyIsUsed() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer)
                .audience(AUDIENCE)
                .subject("admin")
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build();
        assertRefused(authenticator(), new PlainJWT(claims).serialize(), "The token is not a signed JWT");

        // Algorithm confusion: HS256 "signed" with the issuer's public key, which anyone can fetch.
        SignedJWT confused = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        byte[] publicKey = idp.currentKey().toRSAPublicKey().getEncoded();
        confused.sign(new MACSigner(publicKey));
        assertRefused(authenticator(), confused.serialize(), "The token's algorithm is not accepted for its issuer");
    }

    @Test
    void aKeyTheIssuerNeverPublishedIsRefusedAndFetchesTheKeysAtMostTwice() throws Exception {
        TokenAuthenticator verifier = authenticator();
        verifier.verify(idp.token("default", "alice", AUDIENCE));
        idp.keySetRequests();
        RSAKey rogue = new RSAKeyGenerator(2048).keyID("rogue").generate();

        for (int i = 0; i < 5; i++) {
            SignedJWT forged = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("rogue").build(),
                    new JWTClaimsSet.Builder()
                            .issuer(issuer)
                            .audience(AUDIENCE)
                            .subject("admin-" + i)
                            .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                            .build());
            forged.sign(new RSASSASigner(rogue));
            assertRefused(verifier, forged.serialize(), "The token's key is not one of its issuer's");
        }
        // The first miss fetches the set again (rotation); the rate limit stops the rest from hammering the issuer.
        assertThat(idp.keySetRequests()).isEqualTo(1);
    }

    @Test
    void aRotatedKeyIsPickedUpOnItsFirstToken() {
        TokenAuthenticator verifier = authenticator();
        assertThat(verifier.verify(idp.token("default", "alice", AUDIENCE)).name())
                .isEqualTo("idp:alice");

        idp.rotate();
        String signedWithTheNewKey = idp.token("default", "bob", AUDIENCE);

        assertThat(SignedJWT.class.cast(parse(signedWithTheNewKey)).getHeader().getKeyID())
                .isEqualTo("key-2");
        assertThat(verifier.verify(signedWithTheNewKey).name()).isEqualTo("idp:bob");
    }

    @Test
    void anIssuerDownAtStartIsUnavailableUntilItAnswers() {
        int port = idp.port();
        idp.close();
        TokenAuthenticator verifier = authenticator();
        verifier.discover(); // the server's start: it fails, and the server goes on

        // Tokens the issuer made before it went down, so nothing here needs it up.
        OidcTestIssuer later = OidcTestIssuer.start(port);
        idp = later;
        String token = later.token("default", "alice", AUDIENCE);
        later.close();
        assertRefused(verifier, token, "The token's issuer is unavailable");

        idp = OidcTestIssuer.start(port);
        String fresh = idp.token("default", "alice", AUDIENCE);
        // Up again, but the last attempt was just now: not retried before the retry interval.
        assertRefused(verifier, fresh, "The token's issuer is unavailable");
        clock.advance(Duration.ofSeconds(6));
        assertThat(verifier.verify(fresh).name()).isEqualTo("idp:alice");
    }

    @Test
    void aDiscoveryDocumentForAnotherIssuerIsNotTrusted() {
        // Configured issuer "default" but discovery of "other": the document names another issuer.
        OidcIssuer mismatched = new OidcIssuer(
                "idp",
                issuer,
                OidcIssuer.defaultDiscovery(idp.issuer("other")),
                AUDIENCE,
                "sub",
                Optional.empty(),
                OidcIssuer.DEFAULT_ALGORITHMS,
                Duration.ofSeconds(30),
                PROVIDER_TIMEOUT,
                Duration.ofSeconds(5));

        assertRefused(
                authenticator(mismatched),
                idp.token("default", "alice", AUDIENCE),
                "The token's issuer is unavailable");
    }

    @Test
    void badClaimValuesAreRefused() {
        TokenAuthenticator verifier = authenticator(config(issuer, Optional.of("groups"), "email"));

        assertRefused(
                verifier,
                idp.token("default", "alice", AUDIENCE),
                "The token's principal claim is missing or not a usable name");
        assertRefused(
                verifier,
                idp.token("default", "alice", AUDIENCE, Map.of("email", "a@b", "groups", List.of(1, 2)), 3600),
                "The token's roles claim is not a list of names");
        assertRefused(
                verifier,
                idp.token("default", "alice", AUDIENCE, Map.of("email", "a\nb"), 3600),
                "The token's principal claim is missing or not a usable name");
    }

    @Test
    void aCachedTokenStillExpires() {
        TokenAuthenticator verifier = authenticator();
        String token = idp.token("default", "alice", AUDIENCE, Map.of(), 60);
        assertThat(verifier.verify(token).name()).isEqualTo("idp:alice");
        assertThat(verifier.cachedTokens()).isEqualTo(1);

        // Served from the cache while the issuer is gone...
        idp.close();
        assertThat(verifier.verify(token).name()).isEqualTo("idp:alice");
        // ...but not past its exp (and the issuer's 30 s of clock skew): checked again, and refused.
        clock.advance(Duration.ofSeconds(91));
        assertRefused(verifier, token, "The token has expired");
        idp = OidcTestIssuer.start();
    }

    @Test
    void aCachedBuiltInTokenStillExpires() {
        TokenAuthenticator verifier = new TokenAuthenticator(builtIn(), List.of(), Duration.ofHours(1), 1000, clock);
        String token = builtIn().issue(new Principal("etl")).token();
        assertThat(verifier.verify(token)).isEqualTo(new Principal("etl"));
        assertThat(verifier.cachedTokens()).isEqualTo(1);

        clock.advance(Duration.ofMinutes(10).plus(BearerTokens.DEFAULT_CLOCK_SKEW));

        assertRefused(verifier, token, "The token has expired");
    }

    @Test
    void theCacheHoldsNoEntryLongerThanItsTtl() {
        TokenAuthenticator verifier = new TokenAuthenticator(builtIn(), List.of(), Duration.ofSeconds(5), 1000, clock);
        String token = builtIn().issue(new Principal("etl")).token();
        verifier.verify(token);

        clock.advance(Duration.ofSeconds(6));
        // Past the TTL the token is checked again: still valid, so verified anew (no stale entry believed).
        assertThat(verifier.verify(token)).isEqualTo(new Principal("etl"));
    }

    @Test
    void withoutExternalIssuersTheServersMessagesAreUnchanged() {
        TokenAuthenticator verifier = new TokenAuthenticator(builtIn(), List.of(), Duration.ofMinutes(1), 1000, clock);

        assertRefused(verifier, idp.token("default", "alice", AUDIENCE), "The token's algorithm is not the server's");
        assertRefused(verifier, "garbage", "The token is not a signed JWT");
        assertRefused(verifier, "x".repeat(BearerTokens.MAX_TOKEN_CHARS + 1), "The token is too long");
    }

    @Test
    void aBadConfigurationIsRefusedNamingTheField() {
        assertThatThrownBy(() -> config("http://idp.example.com/realms/x", Optional.empty(), "sub"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("issuer must be https:// (http:// is accepted only on a loopback address):"
                        + " http://idp.example.com/realms/x");
        assertThatThrownBy(() -> new OidcIssuer(
                        "idp",
                        "https://idp.example.com",
                        OidcIssuer.defaultDiscovery("https://idp.example.com"),
                        AUDIENCE,
                        "sub",
                        Optional.empty(),
                        Set.of(JWSAlgorithm.HS256),
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(5)))
                .hasMessageStartingWith("algorithms: HS256 is not accepted for an external issuer");
        assertThatThrownBy(() -> authenticator(config("treecat", Optional.empty(), "sub")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TokenAuthenticator(
                        builtIn(),
                        List.of(
                                config(issuer, Optional.empty(), "sub"),
                                config(idp.issuer("other"), Optional.empty(), "sub")),
                        Duration.ofMinutes(1),
                        10,
                        clock))
                .hasMessage("name idp is given to two issuers");
        assertThat(config("http://127.0.0.1:8080/realms/x", Optional.empty(), "sub")
                        .discovery())
                .hasToString("http://127.0.0.1:8080/realms/x/.well-known/openid-configuration");
        assertThat(config("http://[::1]:8080/", Optional.empty(), "sub").discovery())
                .hasToString("http://[::1]:8080/.well-known/openid-configuration");
    }

    private static Object parse(String token) {
        try {
            return SignedJWT.parse(token);
        } catch (java.text.ParseException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
