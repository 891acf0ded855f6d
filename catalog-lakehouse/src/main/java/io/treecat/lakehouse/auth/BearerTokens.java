package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.SecureRandom;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/**
 * The server's own bearer tokens (nimbus-jose-jwt): short-lived JWTs, HS256 with a server key of at least 256 bits,
 * that {@code /v1/oauth/tokens} issues to built-in principals and every authenticated route checks.
 *
 * <p>A token is accepted only when all hold: it is at most {@link #MAX_TOKEN_CHARS} long; its header names HS256
 * (so {@code alg=none} and every other algorithm are refused before any check); its signature is this key's; it has
 * {@code exp} in the future and {@code iat}, and {@code nbf}, if present, is not in the future (each with the clock
 * skew's slack, {@link #DEFAULT_CLOCK_SKEW} unless configured); its {@code iss} is this issuer and its {@code aud}
 * holds this audience; it names a subject. Anything else is an {@link InvalidTokenException} saying which rule failed, never the token.
 */
public final class BearerTokens implements TokenVerifier {
    /** The longest token read: ours are a few hundred characters; anything much longer is refused unparsed. */
    public static final int MAX_TOKEN_CHARS = 4096;
    /** How far apart two servers' clocks may be (a token issued by one and checked by another), by default. */
    public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(30);
    /** The most clock skew allowed: more would keep an expired token alive for longer than a short lifetime. */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);
    /** The smallest key: HS256 needs 256 bits. */
    public static final int MIN_KEY_BYTES = 32;

    private final JWSSigner signer;
    private final JWSVerifier verifier;
    private final String issuer;
    private final String audience;
    private final Duration lifetime;
    private final Duration clockSkew;
    private final Clock clock;
    private final SecureRandom random;

    /** An issued token and how long it lives. */
    public record Issued(String token, Duration expiresIn) {
        public Issued {
            requireNonNull(token, "token is null");
            requireNonNull(expiresIn, "expiresIn is null");
        }

        @Override
        public String toString() {
            return "Issued[token=<hidden>, expiresIn=" + expiresIn + "]";
        }
    }

    /**
     * @param key the signing key, at least {@link #MIN_KEY_BYTES} bytes; copied
     * @param issuer the {@code iss} tokens carry and must carry
     * @param audience the {@code aud} tokens carry and must hold
     * @param lifetime how long a token lives
     */
    public BearerTokens(
            byte[] key, String issuer, String audience, Duration lifetime, Clock clock, SecureRandom random) {
        this(key, issuer, audience, lifetime, DEFAULT_CLOCK_SKEW, clock, random);
    }

    /**
     * As above, with {@code clockSkew} of slack on {@code exp}, {@code iat} and {@code nbf} (0 to {@link
     * #MAX_CLOCK_SKEW}).
     */
    public BearerTokens(
            byte[] key,
            String issuer,
            String audience,
            Duration lifetime,
            Duration clockSkew,
            Clock clock,
            SecureRandom random) {
        requireNonNull(key, "key is null");
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "The token signing key must have at least " + MIN_KEY_BYTES + " bytes, it has " + key.length);
        }
        this.issuer = requireNonNull(issuer, "issuer is null");
        this.audience = requireNonNull(audience, "audience is null");
        this.lifetime = requireNonNull(lifetime, "lifetime is null");
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("The token lifetime must be positive: " + lifetime);
        }
        this.clockSkew = requireNonNull(clockSkew, "clockSkew is null");
        if (clockSkew.isNegative() || clockSkew.compareTo(MAX_CLOCK_SKEW) > 0) {
            throw new IllegalArgumentException(
                    "The clock skew must be between 0 and " + MAX_CLOCK_SKEW + ": " + clockSkew);
        }
        this.clock = requireNonNull(clock, "clock is null");
        this.random = requireNonNull(random, "random is null");
        try {
            this.signer = new MACSigner(key.clone());
            this.verifier = new MACVerifier(key.clone());
        } catch (JOSEException e) {
            throw new IllegalArgumentException("Unusable token signing key", e);
        }
    }

    public Duration lifetime() {
        return lifetime;
    }

    /** The {@code iss} this server's tokens carry: how {@link TokenAuthenticator} tells them from another issuer's. */
    public String issuer() {
        return issuer;
    }

    /** A new token for {@code principal}, valid from now for {@link #lifetime()}. */
    public Issued issue(Principal principal) {
        Instant now = clock.instant();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer)
                .audience(audience)
                .subject(principal.name())
                .issueTime(Date.from(now))
                .notBeforeTime(Date.from(now))
                .expirationTime(Date.from(now.plus(lifetime)))
                .jwtID(SecretHasher.randomText(random, 16))
                .build();
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.HS256)
                        .type(JOSEObjectType.JWT)
                        .build(),
                claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("Signing a token failed", e);
        }
        return new Issued(jwt.serialize(), lifetime);
    }

    /**
     * The principal {@code token} names, if every rule holds.
     *
     * @throws InvalidTokenException saying which rule failed
     */
    @Override
    public Principal verify(String token) {
        if (token == null || token.isEmpty()) {
            throw new InvalidTokenException("The token is empty");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            throw new InvalidTokenException("The token is too long");
        }
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token);
        } catch (ParseException | RuntimeException e) {
            throw new InvalidTokenException("The token is not a signed JWT");
        }
        // The algorithm is pinned and the key is the server's own: kid, jku, jwk, x5u and x5c name no key here, so a
        // token carrying its own key is checked against ours and fails. A critical header is one we do not know.
        if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
            throw new InvalidTokenException("The token's algorithm is not the server's");
        }
        if (jwt.getHeader().getCriticalParams() != null) {
            throw new InvalidTokenException("The token has critical header parameters the server does not know");
        }
        try {
            if (!jwt.verify(verifier)) {
                throw new InvalidTokenException("The token's signature is not valid");
            }
        } catch (JOSEException | RuntimeException e) {
            if (e instanceof InvalidTokenException invalid) {
                throw invalid;
            }
            throw new InvalidTokenException("The token's signature is not valid");
        }
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new InvalidTokenException("The token's claims are not valid");
        }
        Instant now = clock.instant();
        Date expires = claims.getExpirationTime();
        if (expires == null || !now.isBefore(expires.toInstant().plus(clockSkew))) {
            throw new InvalidTokenException("The token has expired");
        }
        // Ours always carry iat; one in the future is another server's clock or a forgery, refused like nbf.
        Date issued = claims.getIssueTime();
        if (issued == null) {
            throw new InvalidTokenException("The token has no issue time");
        }
        if (now.plus(clockSkew).isBefore(issued.toInstant())) {
            throw new InvalidTokenException("The token is not valid yet");
        }
        Date notBefore = claims.getNotBeforeTime();
        if (notBefore != null && now.plus(clockSkew).isBefore(notBefore.toInstant())) {
            throw new InvalidTokenException("The token is not valid yet");
        }
        if (!issuer.equals(claims.getIssuer())) {
            throw new InvalidTokenException("The token's issuer is not this server");
        }
        List<String> audiences = claims.getAudience();
        if (audiences == null || !audiences.contains(audience)) {
            throw new InvalidTokenException("The token's audience is not this server");
        }
        String subject = claims.getSubject();
        if (subject == null || subject.isEmpty()) {
            throw new InvalidTokenException("The token names no subject");
        }
        return new Principal(subject);
    }
}
