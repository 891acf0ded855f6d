package io.treecat.lakehouse.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import org.junit.jupiter.api.Test;

/** The server's tokens: what it issues verifies; every forged, stale or foreign token is refused with its reason. */
class TestBearerTokens {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");
    private static final Principal ETL = new Principal("etl");

    private static BearerTokens tokens(Instant now) {
        return tokens(KEY, "treecat", "treecat-api", now);
    }

    private static BearerTokens tokens(byte[] key, String issuer, String audience, Instant now) {
        return tokens(key, issuer, audience, BearerTokens.DEFAULT_CLOCK_SKEW, now);
    }

    private static BearerTokens tokens(byte[] key, String issuer, String audience, Duration clockSkew, Instant now) {
        return new BearerTokens(
                key,
                issuer,
                audience,
                Duration.ofMinutes(10),
                clockSkew,
                Clock.fixed(now, ZoneOffset.UTC),
                new SecureRandom());
    }

    @Test
    void anIssuedTokenNamesItsPrincipal() {
        BearerTokens.Issued issued = tokens(NOW).issue(ETL);

        assertThat(issued.expiresIn()).isEqualTo(Duration.ofMinutes(10));
        assertThat(issued.toString()).doesNotContain(issued.token());
        assertThat(tokens(NOW.plusSeconds(599)).verify(issued.token())).isEqualTo(ETL);
    }

    @Test
    void anExpiredTokenIsRefused() {
        String token = tokens(NOW).issue(ETL).token();

        assertThatThrownBy(() -> tokens(NOW.plus(Duration.ofMinutes(10)).plus(BearerTokens.DEFAULT_CLOCK_SKEW))
                        .verify(token))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessage("The token has expired");
    }

    @Test
    void aConfiguredClockSkewIsTheSlackOnExpiry() {
        String token = tokens(NOW).issue(ETL).token();
        Instant expired = NOW.plus(Duration.ofMinutes(10));

        assertThat(skewed(Duration.ofSeconds(2), expired.plusSeconds(1)).verify(token))
                .isEqualTo(ETL);
        assertThatThrownBy(() ->
                        skewed(Duration.ofSeconds(2), expired.plusSeconds(2)).verify(token))
                .hasMessage("The token has expired");
        assertThatThrownBy(() -> skewed(Duration.ZERO, expired).verify(token)).hasMessage("The token has expired");
        assertThatThrownBy(() -> skewed(Duration.ofMinutes(6), NOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clock skew");
    }

    private static BearerTokens skewed(Duration clockSkew, Instant now) {
        return tokens(KEY, "treecat", "treecat-api", clockSkew, now);
    }

    @Test
    void aTokenFromTheFutureIsRefused() {
        String token = tokens(NOW.plus(Duration.ofMinutes(5))).issue(ETL).token();

        assertThatThrownBy(() -> tokens(NOW).verify(token)).hasMessage("The token is not valid yet");
    }

    @Test
    void anotherKeyIssuerOrAudienceIsRefused() {
        byte[] other = "ffffffffffffffffffffffffffffffff".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> tokens(NOW)
                        .verify(tokens(other, "treecat", "treecat-api", NOW)
                                .issue(ETL)
                                .token()))
                .hasMessage("The token's signature is not valid");
        assertThatThrownBy(() -> tokens(NOW)
                        .verify(tokens(KEY, "someone-else", "treecat-api", NOW)
                                .issue(ETL)
                                .token()))
                .hasMessage("The token's issuer is not this server");
        assertThatThrownBy(() -> tokens(NOW)
                        .verify(tokens(KEY, "treecat", "another-api", NOW)
                                .issue(ETL)
                                .token()))
                .hasMessage("The token's audience is not this server");
    }

    @Test
    void aTamperedTokenIsRefused() {
        String token = tokens(NOW).issue(ETL).token();
        String[] parts = token.split("\\.");
        String claims = new String(Base64URL.from(parts[1]).decode(), StandardCharsets.UTF_8);
        String forged = parts[0] + "." + Base64URL.encode(claims.replace("\"etl\"", "\"admin\"")) + "." + parts[2];

        assertThatThrownBy(() -> tokens(NOW).verify(forged)).hasMessage("The token's signature is not valid");
    }

    @Test
    void unsignedAndOtherAlgorithmsAreRefused() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer("treecat")
                .audience("treecat-api")
                .subject("admin")
                .expirationTime(Date.from(NOW.plusSeconds(60)))
                .build();
        String none = new PlainJWT(claims).serialize();
        assertThatThrownBy(() -> tokens(NOW).verify(none)).hasMessage("The token is not a signed JWT");

        byte[] longKey = new byte[64];
        System.arraycopy(KEY, 0, longKey, 0, KEY.length);
        SignedJWT hs512 = new SignedJWT(new JWSHeader(JWSAlgorithm.HS512), claims);
        hs512.sign(new MACSigner(longKey));
        assertThatThrownBy(() -> tokens(NOW).verify(hs512.serialize()))
                .hasMessage("The token's algorithm is not the server's");
    }

    /** Signs {@code claims} with the server's own key and algorithm, under {@code header}. */
    private static String signed(JWSHeader header, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(header, claims);
        jwt.sign(new MACSigner(KEY));
        return jwt.serialize();
    }

    private static JWTClaimsSet.Builder validClaims() {
        return new JWTClaimsSet.Builder()
                .issuer("treecat")
                .audience("treecat-api")
                .subject("admin")
                .issueTime(Date.from(NOW))
                .expirationTime(Date.from(NOW.plusSeconds(60)));
    }

    @Test
    void theServersOwnKeyWithValidClaimsIsTheBaseline() throws Exception {
        assertThat(tokens(NOW)
                        .verify(signed(
                                new JWSHeader(JWSAlgorithm.HS256), validClaims().build())))
                .isEqualTo(new Principal("admin"));
    }

    @Test
    void aTokenWithoutExpiryOrIssueTimeOrWithAFutureIssueTimeIsRefused() throws Exception {
        JWSHeader header = new JWSHeader(JWSAlgorithm.HS256);
        assertThatThrownBy(() -> tokens(NOW)
                        .verify(signed(
                                header, validClaims().expirationTime(null).build())))
                .hasMessage("The token has expired");
        assertThatThrownBy(() -> tokens(NOW)
                        .verify(signed(header, validClaims().issueTime(null).build())))
                .hasMessage("The token has no issue time");
        assertThatThrownBy(() -> tokens(NOW)
                        .verify(signed(
                                header,
                                validClaims()
                                        .issueTime(Date.from(NOW.plusSeconds(31)))
                                        .build())))
                .hasMessage("The token is not valid yet");
        // Within the clock slack, a slightly fast issuer is fine.
        assertThat(tokens(NOW)
                        .verify(signed(
                                header,
                                validClaims()
                                        .issueTime(Date.from(NOW.plusSeconds(29)))
                                        .build())))
                .isEqualTo(new Principal("admin"));
    }

    @Test
    void aCriticalHeaderIsRefused() throws Exception {
        JWSHeader critical = new JWSHeader.Builder(JWSAlgorithm.HS256)
                .customParam("exp-policy", "x")
                .criticalParams(java.util.Set.of("exp-policy"))
                .build();
        assertThatThrownBy(
                        () -> tokens(NOW).verify(signed(critical, validClaims().build())))
                .hasMessage("The token has critical header parameters the server does not know");
    }

    @Test
    void keysNamedOrCarriedInTheHeaderAreIgnored() throws Exception {
        // An attacker's own key, offered in every way a JOSE header can offer one, signs the token: the server
        // checks it against its own key only.
        byte[] attackerKey = "attacker-attacker-attacker-attacker!".getBytes(StandardCharsets.UTF_8);
        com.nimbusds.jose.jwk.OctetSequenceKey jwk =
                new com.nimbusds.jose.jwk.OctetSequenceKey.Builder(attackerKey).build();
        JWSHeader header = new JWSHeader.Builder(JWSAlgorithm.HS256)
                .keyID("server-key")
                .jwkURL(java.net.URI.create("https://attacker.example/jwks.json"))
                .x509CertURL(java.net.URI.create("https://attacker.example/cert.pem"))
                .build();
        SignedJWT jwt = new SignedJWT(header, validClaims().build());
        jwt.sign(new MACSigner(jwk));
        assertThatThrownBy(() -> tokens(NOW).verify(jwt.serialize())).hasMessage("The token's signature is not valid");

        // The same headers on a token the server's key signed change nothing: they are not read.
        assertThat(tokens(NOW).verify(signed(header, validClaims().build()))).isEqualTo(new Principal("admin"));
    }

    @Test
    void anRsaSignedTokenIsRefusedBeforeAnyKeyIsRead() throws Exception {
        java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        java.security.KeyPair pair = generator.generateKeyPair();
        SignedJWT rs256 =
                new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), validClaims().build());
        rs256.sign(new com.nimbusds.jose.crypto.RSASSASigner(pair.getPrivate()));
        assertThatThrownBy(() -> tokens(NOW).verify(rs256.serialize()))
                .hasMessage("The token's algorithm is not the server's");
    }

    @Test
    void malformedEmptyAndHugeTokensAreRefused() {
        BearerTokens tokens = tokens(NOW);
        for (String bad : new String[] {"abc", "a.b.c", "..", "e30.e30.", "\u0000", "Bearer x"}) {
            assertThatThrownBy(() -> tokens.verify(bad)).as(bad).hasMessage("The token is not a signed JWT");
        }
        assertThatThrownBy(() -> tokens.verify("")).hasMessage("The token is empty");
        assertThatThrownBy(() -> tokens.verify("a".repeat(BearerTokens.MAX_TOKEN_CHARS + 1)))
                .hasMessage("The token is too long");
    }

    @Test
    void aShortKeyIsRefused() {
        assertThatThrownBy(() -> tokens(new byte[31], "i", "a", NOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The token signing key must have at least 32 bytes, it has 31");
    }
}
