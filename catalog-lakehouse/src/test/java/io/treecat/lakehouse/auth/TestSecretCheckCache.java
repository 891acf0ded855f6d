package io.treecat.lakehouse.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.lakehouse.LakeTestStores;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache of client id and secret pairs on a real tree: a pair that proved a principal is believed for its time to
 * live (so a deleted principal's pair still passes within it, the documented window), never a refused one; without a
 * time to live every pair is checked again.
 */
class TestSecretCheckCache {
    private static final SecretHasher FAST = new SecretHasher(4);
    private static final Principal ADMIN = new Principal("admin");

    @TempDir
    Path directory;

    private LakeTestStores.Lake lake;
    private BuiltInPrincipals principals;

    @BeforeEach
    void open() {
        lake = LakeTestStores.lake(directory);
        principals = new BuiltInPrincipals(lake.runner(), FAST, new SecureRandom(), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        lake.close();
    }

    @Test
    void aProvedPairIsBelievedForItsTimeToLiveAndARefusedOneNever() {
        SecretCheckCache cache = new SecretCheckCache(principals, Duration.ofMinutes(1), 100, 1);
        BuiltInPrincipals.WithSecret etl = principals.create(ADMIN, "etl");
        String id = etl.principal().clientId();

        assertThat(cache.authenticate(id, etl.secret() + "x")).isEmpty();
        assertThat(cache.authenticate(id, etl.secret())).contains(new Principal("etl"));
        principals.delete(ADMIN, "etl");
        // Within the time to live the checked pair still passes (as a verified token does); others never did.
        assertThat(cache.authenticate(id, etl.secret())).contains(new Principal("etl"));
        assertThat(cache.authenticate(id, etl.secret() + "x")).isEmpty();
        assertThat(cache.authenticate(null, null)).isEmpty();
    }

    @Test
    void withoutATimeToLiveEveryPairIsCheckedAgain() {
        SecretCheckCache cache = new SecretCheckCache(principals, Duration.ZERO, 100, 2);
        BuiltInPrincipals.WithSecret etl = principals.create(ADMIN, "etl");
        assertThat(cache.authenticate(etl.principal().clientId(), etl.secret())).contains(new Principal("etl"));
        principals.delete(ADMIN, "etl");
        assertThat(cache.authenticate(etl.principal().clientId(), etl.secret())).isEmpty();
    }
}
