package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.collect.ImmutableMap;
import com.google.common.util.concurrent.Striped;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.regex.Pattern;

/**
 * Vended credentials for one table: STS {@code AssumeRole} with the catalog's role and the table's inline session
 * policy ({@link SessionPolicies}), so the client can reach the table's objects and nothing else, whatever the role
 * allows.
 *
 * <p>Credentials are kept per (catalog FileIO, table location, access) and handed out again while at least half of
 * the lifetime clients are told remains: a busy table calls STS about twice per vended duration, not on every load,
 * and every client still gets credentials that last at least half of it. Two requests that find the entry stale at
 * the same moment wait for one STS call (a lock per key).
 */
public final class CredentialVending {
    /** Iceberg's property names of S3 credentials, in a {@code storage-credentials} entry and a table's config. */
    public static final String ACCESS_KEY_ID = StorageSettings.S3_ACCESS_KEY_ID;

    public static final String SECRET_ACCESS_KEY = StorageSettings.S3_SECRET_ACCESS_KEY;
    public static final String SESSION_TOKEN = StorageSettings.S3_SESSION_TOKEN;
    public static final String EXPIRES_AT_MS = "s3.session-token-expires-at-ms";

    /** STS's RoleSessionName: 2 to 64 of these characters. */
    private static final Pattern SESSION_NAME_REFUSED = Pattern.compile("[^\\w+=,.@-]");

    private static final int MAX_SESSION_NAME = 64;

    private final CredentialVendor vendor;
    private final Clock clock;
    private final Cache<Key, Entry> cache =
            CacheBuilder.newBuilder().maximumSize(10_000).build();
    private final Striped<Lock> locks = Striped.lock(64);

    /** What the cache holds credentials by: the FileIO stands for the catalog's settings (a change makes a new one). */
    private record Key(StoreFileIO io, String location, SessionPolicies.Access access) {}

    private record Entry(Vended vended, Instant reuseUntil) {}

    /**
     * Credentials for one table: the {@code storage-credentials} entry's prefix (the table's location) and config.
     * {@link #toString} shows no secret.
     *
     * @param expiresAt what clients are told ({@code s3.session-token-expires-at-ms}): STS's expiry less the catalog's
     *     refresh margin
     */
    public record Vended(String prefix, CredentialVendor.Session session, Instant expiresAt) {
        public Vended {
            requireNonNull(prefix, "prefix is null");
            requireNonNull(session, "session is null");
            requireNonNull(expiresAt, "expiresAt is null");
        }

        /** Iceberg's S3 credential properties: for the response body only. */
        public Map<String, String> config() {
            return ImmutableMap.of(
                    ACCESS_KEY_ID,
                    session.accessKeyId(),
                    SECRET_ACCESS_KEY,
                    session.secretAccessKey(),
                    SESSION_TOKEN,
                    session.sessionToken(),
                    EXPIRES_AT_MS,
                    Long.toString(expiresAt.toEpochMilli()));
        }

        @Override
        public String toString() {
            return "Vended[prefix=" + prefix + ", " + session + ", expiresAt=" + expiresAt + "]";
        }
    }

    public CredentialVending(CredentialVendor vendor, Clock clock) {
        this.vendor = requireNonNull(vendor, "vendor is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Whether {@code warehouse} can vend: on S3, with a role to assume. A warehouse that is not on S3 has nothing to
     * vend (its files are reached with the client's own access).
     */
    public static boolean canVend(Warehouse warehouse) {
        return AccessDelegation.onS3(warehouse)
                && warehouse.io() instanceof StoreFileIO store
                && store.credentials().roleArn() != null
                && !store.credentials().roleArn().isBlank();
    }

    /**
     * Credentials for the table {@code table} at {@code tableLocation} in {@code warehouse}, from the cache or from
     * STS.
     *
     * @param table names the table in STS's session name (the store's audit log)
     * @throws CatalogException {@code INVALID_REQUEST} for a catalog not on S3; {@code INVALID_STORAGE_SETTINGS}
     *     (context {@code catalog} and {@code key}) for one with no role to assume; {@code INVALID_LOCATION} for a
     *     location no session policy can scope; {@code OBJECT_STORE_UNAVAILABLE} when STS fails, with its error
     *     scrubbed of the catalog's keys
     */
    public Vended vend(Warehouse warehouse, String table, String tableLocation, SessionPolicies.Access access) {
        if (!AccessDelegation.onS3(warehouse) || !(warehouse.io() instanceof StoreFileIO store)) {
            throw new CatalogException(
                            ErrorCode.INVALID_REQUEST,
                            "Vended credentials serve only tables in a catalog on S3; this catalog's files are reached"
                                    + " with the client's own access")
                    .with("catalog", warehouse.catalog());
        }
        StorageCredentials settings = store.credentials();
        if (!canVend(warehouse)) {
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS,
                            "This catalog cannot vend credentials: its credentials have no role to assume (set"
                                    + " credentials.role-arn), and it never hands out its own keys; ask for"
                                    + " remote-signing instead")
                    .with("catalog", warehouse.catalog())
                    .with("key", "credentials." + StorageCredentials.ROLE_ARN);
        }
        String location = Locations.stripSlash(tableLocation);
        String policy;
        try {
            policy = SessionPolicies.forTable(location, access);
        } catch (IllegalArgumentException e) {
            throw new CatalogException(
                            ErrorCode.INVALID_LOCATION, "Cannot vend credentials for this table: " + e.getMessage())
                    .with("table", table);
        }
        Key key = new Key(store, location, access);
        Entry current = cache.getIfPresent(key);
        if (current != null && clock.instant().isBefore(current.reuseUntil())) {
            return current.vended();
        }
        Lock lock = locks.get(key);
        lock.lock();
        try {
            current = cache.getIfPresent(key);
            Instant now = clock.instant();
            if (current != null && now.isBefore(current.reuseUntil())) {
                return current.vended();
            }
            CredentialVendor.Session session = assumeRole(
                    warehouse,
                    store,
                    new CredentialVendor.Request(
                            settings.roleArn(),
                            settings.externalId(),
                            sessionName(warehouse.catalog(), table),
                            policy,
                            settings.vendedDuration()));
            Instant expiresAt = session.expiration().minus(settings.refreshMargin());
            Duration told = Duration.between(now, expiresAt);
            Instant reuseUntil = told.isNegative() ? now : now.plus(told.dividedBy(2));
            Vended vended = new Vended(location, session, expiresAt);
            cache.put(key, new Entry(vended, reuseUntil));
            return vended;
        } finally {
            lock.unlock();
        }
    }

    private CredentialVendor.Session assumeRole(
            Warehouse warehouse, StoreFileIO store, CredentialVendor.Request request) {
        try {
            return vendor.assumeRole(warehouse, request);
        } catch (UnsupportedOperationException e) {
            throw new CatalogException(
                            ErrorCode.INVALID_REQUEST, "Vended credentials are not available: " + e.getMessage())
                    .with("catalog", warehouse.catalog());
        } catch (RuntimeException e) {
            if (!StoreFailures.isStoreFailure(e)) {
                throw e;
            }
            throw new CatalogException(
                            ErrorCode.OBJECT_STORE_UNAVAILABLE,
                            "The catalog's credential service (STS) failed: " + StoreFailures.describe(store, e),
                            e)
                    .with("catalog", warehouse.catalog());
        }
    }

    /** {@code treecat-<catalog>-<table>}, in STS's alphabet and length. */
    static String sessionName(String catalog, String table) {
        String name =
                SESSION_NAME_REFUSED.matcher("treecat-" + catalog + "-" + table).replaceAll("_");
        return name.length() > MAX_SESSION_NAME ? name.substring(0, MAX_SESSION_NAME) : name;
    }
}
