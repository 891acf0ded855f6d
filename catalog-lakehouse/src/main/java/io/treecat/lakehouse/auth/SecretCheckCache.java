package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * {@link BuiltInPrincipals#authenticate} for listeners that take a client id and secret on every connection (Hive's
 * SASL PLAIN): a bcrypt check costs tens of milliseconds, and Hive's clients reconnect often (one connection per
 * session, a reconnect on every retry).
 *
 * <p>A pair that proved a principal is kept (Caffeine, bounded, for at most {@code ttl}), keyed by the SHA-256 of the
 * client id and secret, so no secret is held as a key: the same pair again skips the bcrypt check. A fast hash is safe
 * here because built-in secrets are 256 random bits. Refusals are never cached, so a wrong secret always costs a full
 * check; at most {@code maxConcurrentChecks} checks run at once, the others wait, so a flood of bad credentials
 * cannot take every core. What the TTL bounds: a deleted principal or a rotated secret still admits a pair already
 * checked for at most {@code ttl} (the same window as the token cache, {@code auth.token-cache-ttl}).
 */
public final class SecretCheckCache {
    private final BuiltInPrincipals principals;
    private final Cache<HashCode, Principal> proved;
    private final Semaphore checks;

    /**
     * @param ttl how long a pair that proved a principal is believed without a check (zero: always checked)
     * @param maxEntries how many pairs are kept at most
     * @param maxConcurrentChecks how many bcrypt checks run at once
     */
    public SecretCheckCache(BuiltInPrincipals principals, Duration ttl, long maxEntries, int maxConcurrentChecks) {
        this.principals = requireNonNull(principals, "principals is null");
        requireNonNull(ttl, "ttl is null");
        if (ttl.isNegative() || maxEntries < 0 || maxConcurrentChecks < 1) {
            throw new IllegalArgumentException("Invalid secret check cache settings");
        }
        this.proved = Caffeine.newBuilder()
                .maximumSize(ttl.isZero() ? 0 : maxEntries)
                .expireAfterWrite(ttl.isZero() ? Duration.ofNanos(1) : ttl)
                .executor(Runnable::run)
                .build();
        this.checks = new Semaphore(maxConcurrentChecks, true);
    }

    /** The principal {@code clientId} and {@code secret} prove, or empty (as {@link BuiltInPrincipals#authenticate}). */
    public Optional<Principal> authenticate(String clientId, String secret) {
        if (clientId == null || secret == null) {
            return principals.authenticate(clientId, secret);
        }
        HashCode key = Hashing.sha256()
                .newHasher()
                .putString(clientId, StandardCharsets.UTF_8)
                .putByte((byte) 0)
                .putString(secret, StandardCharsets.UTF_8)
                .hash();
        Principal known = proved.getIfPresent(key);
        if (known != null) {
            return Optional.of(known);
        }
        try {
            checks.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        try {
            Optional<Principal> principal = principals.authenticate(clientId, secret);
            principal.ifPresent(value -> proved.put(key, value));
            return principal;
        } finally {
            checks.release();
        }
    }
}
