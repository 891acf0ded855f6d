package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.collect.ImmutableMap;
import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The server's one {@link TokenVerifier}: every listener that authenticates calls {@link #verify}. A token is routed by
 * its {@code iss}, read unverified only to choose who checks it: the server's own issuer goes to {@link BearerTokens}
 * (HS256 with the server key), a configured OpenID Connect issuer to its {@link OidcIssuerVerifier} (its JWKS), and any
 * other issuer is refused. Whoever checks it then verifies everything, {@code iss} included.
 *
 * <p>What was verified is cached (Caffeine, bounded), keyed by the SHA-256 of the token, so the token itself is not
 * kept: a request repeating a token skips the parse and the signature check (issue 18's goal: auth adds under 5 % to
 * a {@code loadTable}). An entry lives until the token's {@code exp} or the cache's time to live, whichever is first,
 * read against the clock on every hit, so a cached token still expires on time. Refusals are not cached.
 */
public final class TokenAuthenticator implements TokenVerifier {
    private final BearerTokens builtIn;
    private final Map<String, OidcIssuerVerifier> issuers;
    private final Clock clock;
    private final Duration cacheTtl;
    private final Cache<HashCode, Verified> cache;

    /** What a check proved, and until when it may be believed without checking again. */
    record Verified(Principal principal, Instant expires) {
        Verified {
            requireNonNull(principal, "principal is null");
            requireNonNull(expires, "expires is null");
        }
    }

    /**
     * @param builtIn the server's own tokens, for tokens whose {@code iss} is {@link BearerTokens#issuer()}
     * @param issuers external OpenID Connect issuers, none with the built-in issuer or another's {@code iss} or name
     * @param cacheTtl how long a verified token is believed at most (zero: no cache)
     * @param cacheMaxEntries how many verified tokens are kept at most
     */
    public TokenAuthenticator(
            BearerTokens builtIn, List<OidcIssuer> issuers, Duration cacheTtl, long cacheMaxEntries, Clock clock) {
        this.builtIn = requireNonNull(builtIn, "builtIn is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.cacheTtl = requireNonNull(cacheTtl, "cacheTtl is null");
        if (cacheTtl.isNegative() || cacheMaxEntries < 0) {
            throw new IllegalArgumentException("The token cache's time to live and size must not be negative");
        }
        checkIssuers(builtIn.issuer(), issuers);
        ImmutableMap.Builder<String, OidcIssuerVerifier> byIssuer = ImmutableMap.builder();
        for (OidcIssuer issuer : issuers) {
            byIssuer.put(issuer.issuer(), new OidcIssuerVerifier(issuer, clock));
        }
        this.issuers = byIssuer.buildOrThrow();
        // Maintenance on the calling thread: no work for the common pool, and eviction is prompt in tests.
        this.cache = Caffeine.newBuilder()
                .maximumSize(cacheMaxEntries)
                .expireAfterWrite(cacheTtl.isZero() ? Duration.ofNanos(1) : cacheTtl)
                .executor(Runnable::run)
                .build();
    }

    /**
     * The rules between issuers, which no single entry can check: none is the server's own issuer, and no name or
     * issuer is given twice (the start and {@code check-config} both apply them).
     *
     * @throws IllegalArgumentException naming the issuer or name
     */
    public static void checkIssuers(String builtInIssuer, List<OidcIssuer> issuers) {
        requireNonNull(issuers, "issuers is null");
        Set<String> names = new HashSet<>();
        Set<String> seen = new HashSet<>();
        for (OidcIssuer issuer : issuers) {
            if (issuer.issuer().equals(builtInIssuer)) {
                throw new IllegalArgumentException("issuer " + issuer.issuer()
                        + " is the server's own token issuer (auth.issuer): tokens could not be told apart");
            }
            if (!names.add(issuer.name())) {
                throw new IllegalArgumentException("name " + issuer.name() + " is given to two issuers");
            }
            if (!seen.add(issuer.issuer())) {
                throw new IllegalArgumentException("issuer " + issuer.issuer() + " is configured twice");
            }
        }
    }

    /** Reads each issuer's discovery document now, so the first token need not wait; an issuer down is retried later. */
    public void discover() {
        issuers.values().forEach(OidcIssuerVerifier::discover);
    }

    @Override
    public Principal verify(String token) {
        if (token == null || token.isEmpty()) {
            throw new InvalidTokenException("The token is empty");
        }
        if (token.length() > BearerTokens.MAX_TOKEN_CHARS) {
            throw new InvalidTokenException("The token is too long");
        }
        HashCode key = cacheTtl.isZero() ? null : Hashing.sha256().hashString(token, StandardCharsets.UTF_8);
        if (key != null) {
            Verified cached = cache.getIfPresent(key);
            if (cached != null) {
                if (clock.instant().isBefore(cached.expires())) {
                    return cached.principal();
                }
                cache.invalidate(key);
            }
        }
        Verified verified = check(token);
        if (key != null) {
            Instant ttlEnd = clock.instant().plus(cacheTtl);
            cache.put(
                    key,
                    new Verified(
                            verified.principal(), verified.expires().isBefore(ttlEnd) ? verified.expires() : ttlEnd));
        }
        return verified.principal();
    }

    /** How many verified tokens the cache holds now (for tests and metrics). */
    public long cachedTokens() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    private Verified check(String token) {
        SignedJWT jwt;
        String issuer;
        try {
            jwt = SignedJWT.parse(token);
            issuer = jwt.getJWTClaimsSet().getIssuer();
        } catch (ParseException | RuntimeException e) {
            throw new InvalidTokenException("The token is not a signed JWT");
        }
        OidcIssuerVerifier external = issuer == null ? null : issuers.get(issuer);
        if (external != null) {
            return external.verify(jwt);
        }
        if (!issuers.isEmpty() && !builtIn.issuer().equals(issuer)) {
            throw new InvalidTokenException("The token's issuer is not trusted");
        }
        // The server's own issuer, or no external issuer configured: BearerTokens says what is wrong, as it always did.
        Principal principal = builtIn.verify(token);
        return new Verified(principal, expiry(jwt));
    }

    /** The {@code exp} of a token {@link BearerTokens} accepted (so it has one, and its claims parse). */
    private static Instant expiry(SignedJWT jwt) {
        try {
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            Date expires = claims.getExpirationTime();
            return expires.toInstant();
        } catch (ParseException e) {
            throw new InvalidTokenException("The token's claims are not valid");
        }
    }
}
