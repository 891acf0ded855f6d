package io.treecat.lakehouse.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The vending rules without STS: a hand-written vendor records each request and answers numbered sessions. */
class TestCredentialVending {
    private static final Map<String, String> S3 =
            Map.of("s3.endpoint", "http://127.0.0.1:9000", "client.region", "us-east-1");
    private static final String ROLE = "arn:aws:iam::123456789012:role/vended";

    /** A clock the test moves. */
    private static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }
    }

    /** Records each request; answers session n expiring its duration after the clock's now, or fails. */
    private static final class RecordingVendor implements CredentialVendor {
        private final Clock clock;
        private final List<Request> requests = new ArrayList<>();
        private RuntimeException failure;

        RecordingVendor(Clock clock) {
            this.clock = clock;
        }

        @Override
        public Session assumeRole(Warehouse warehouse, Request request) {
            if (failure != null) {
                throw failure;
            }
            requests.add(request);
            int n = requests.size();
            return new Session(
                    "ASIA" + n, "secret-" + n, "token-" + n, clock.instant().plus(request.duration()));
        }
    }

    private static Warehouse warehouse(StorageCredentials credentials) {
        StoreFileIO io = new StoreFileIO(new LocalFileIO(), List.of("ADMINKEY", "admin/secret"), S3, credentials);
        return new Warehouse("lake", "s3://bucket/lake", io);
    }

    private static StorageCredentials role(Integer duration, Integer margin) {
        return new StorageCredentials(
                StorageCredentials.Source.STATIC, "K", "S", null, null, ROLE, "ext", null, duration, margin);
    }

    @Test
    void vendsTheTablesPolicyAndCachesForHalfOfTheToldLifetime() {
        MovableClock clock = new MovableClock();
        RecordingVendor vendor = new RecordingVendor(clock);
        CredentialVending vending = new CredentialVending(vendor, clock);
        Warehouse lake = warehouse(role(900, 300));

        CredentialVending.Vended first =
                vending.vend(lake, "ns.t", "s3://bucket/lake/ns/t/", SessionPolicies.Access.READ_WRITE);
        assertThat(first.prefix()).isEqualTo("s3://bucket/lake/ns/t");
        assertThat(vendor.requests).hasSize(1);
        CredentialVendor.Request request = vendor.requests.get(0);
        assertThat(request.roleArn()).isEqualTo(ROLE);
        assertThat(request.externalId()).isEqualTo("ext");
        assertThat(request.duration()).isEqualTo(Duration.ofSeconds(900));
        assertThat(request.sessionName()).isEqualTo("treecat-lake-ns.t");
        assertThat(request.policy())
                .isEqualTo(SessionPolicies.forTable("s3://bucket/lake/ns/t", SessionPolicies.Access.READ_WRITE));
        // Told 600 s (900 less the 300 s margin).
        assertThat(first.expiresAt()).isEqualTo(clock.instant().plusSeconds(600));
        assertThat(first.config())
                .containsEntry("s3.access-key-id", "ASIA1")
                .containsEntry("s3.secret-access-key", "secret-1")
                .containsEntry("s3.session-token", "token-1")
                .containsEntry(
                        "s3.session-token-expires-at-ms",
                        Long.toString(clock.instant().plusSeconds(600).toEpochMilli()));
        assertThat(first.toString()).doesNotContain("secret-1", "token-1");

        clock.advance(Duration.ofSeconds(299));
        assertThat(vending.vend(lake, "ns.t", "s3://bucket/lake/ns/t", SessionPolicies.Access.READ_WRITE)
                        .session()
                        .accessKeyId())
                .isEqualTo("ASIA1");
        // Another access or another table: its own credentials.
        vending.vend(lake, "ns.t", "s3://bucket/lake/ns/t", SessionPolicies.Access.READ);
        vending.vend(lake, "ns.u", "s3://bucket/lake/ns/u", SessionPolicies.Access.READ_WRITE);
        assertThat(vendor.requests).hasSize(3);
        clock.advance(Duration.ofSeconds(1));
        assertThat(vending.vend(lake, "ns.t", "s3://bucket/lake/ns/t", SessionPolicies.Access.READ_WRITE)
                        .session()
                        .accessKeyId())
                .isEqualTo("ASIA4");
    }

    @Test
    void refusesWhatCannotVendNamingTheCatalogAndTheSetting() {
        CredentialVending vending = new CredentialVending(CredentialVendor.NONE, Clock.systemUTC());
        Warehouse noRole =
                warehouse(new StorageCredentials(StorageCredentials.Source.STATIC, "K", "S", null, null, null, null));
        assertThat(CredentialVending.canVend(noRole)).isFalse();
        assertThatThrownBy(() -> vending.vend(noRole, "ns.t", "s3://bucket/lake/ns/t", SessionPolicies.Access.READ))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("This catalog cannot vend credentials")
                .satisfies(e -> {
                    CatalogException error = (CatalogException) e;
                    assertThat(error.code()).isEqualTo(ErrorCode.INVALID_STORAGE_SETTINGS);
                    assertThat(error.context())
                            .containsEntry("catalog", "lake")
                            .containsEntry("key", "credentials.role-arn");
                });
        Warehouse local = new Warehouse("w", "file:/w", new LocalFileIO());
        assertThatThrownBy(() -> vending.vend(local, "ns.t", "file:/w/ns/t", SessionPolicies.Access.READ))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Vended credentials serve only tables in a catalog on S3");
        // A location no policy can scope.
        assertThatThrownBy(() -> vending.vend(
                        warehouse(role(null, null)), "ns.t", "s3://bucket/lake/n*", SessionPolicies.Access.READ))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Cannot vend credentials for this table");
    }

    @Test
    void anStsFailureIsUnavailableWithItsErrorScrubbed() {
        MovableClock clock = new MovableClock();
        RecordingVendor vendor = new RecordingVendor(clock);
        vendor.failure = new UncheckedIOException(new IOException("Connection refused signing with ADMINKEY"));
        CredentialVending vending = new CredentialVending(vendor, clock);
        assertThatThrownBy(() -> vending.vend(
                        warehouse(role(null, null)), "ns.t", "s3://bucket/lake/ns/t", SessionPolicies.Access.READ))
                .isInstanceOf(CatalogException.class)
                .hasMessage("The catalog's credential service (STS) failed: Connection refused signing with ****")
                .satisfies(
                        e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.OBJECT_STORE_UNAVAILABLE));
        // A bug is not dressed up as an outage.
        vendor.failure = new IllegalStateException("bug");
        assertThatThrownBy(() -> vending.vend(
                        warehouse(role(null, null)), "ns.t", "s3://bucket/lake/ns/t", SessionPolicies.Access.READ))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theHeaderNamesOnlyTheSpecsMechanisms() {
        AccessDelegation.check("vended-credentials, Remote-Signing");
        AccessDelegation.check(null);
        assertThatThrownBy(() -> AccessDelegation.check("vended-credential"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith(": vended-credential");
        assertThatThrownBy(() -> AccessDelegation.check("vended-credentials,"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sessionNamesFitSts() {
        assertThat(CredentialVending.sessionName("lake", "a b.t/ü")).isEqualTo("treecat-lake-a_b.t__");
        assertThat(CredentialVending.sessionName("lake", "x".repeat(100))).hasSize(64);
    }

    @Test
    void vendingSettingsAreChecked() {
        assertRefused(role(600, null), "STS vends credentials for 900 to 43200 seconds", "vended-duration-seconds");
        assertRefused(role(900, 900), "The refresh margin must be at least 0", "refresh-margin-seconds");
        assertRefused(
                new StorageCredentials(
                        StorageCredentials.Source.DEFAULT, null, null, null, null, null, null, null, 900, null),
                "This setting needs credentials.role-arn",
                "vended-duration-seconds");
        StorageCredentials stored =
                StorageCredentials.fromReferences(role(1200, 60).references());
        assertThat(stored).isEqualTo(role(1200, 60));
        assertThatThrownBy(() -> StorageCredentials.fromReferences(Map.of("vended-duration-seconds", "an hour")))
                .isInstanceOf(CatalogException.class)
                .hasMessage("A number of seconds is expected");
    }

    private static void assertRefused(StorageCredentials credentials, String message, String key) {
        assertThatThrownBy(credentials::checkVending)
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith(message)
                .satisfies(
                        e -> assertThat(((CatalogException) e).context()).containsEntry("key", "credentials." + key));
    }
}
