package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What Trino is started with when a test brings its own TreeCat ({@link TrinoEnvironment#startOn}): the Iceberg REST
 * catalog file, and a process environment that holds no key of the machine, so a test without keys proves Trino used
 * none.
 */
class TestTrinoCatalogFiles {
    private static final URI REST = URI.create("http://127.0.0.1:8181");

    @Test
    void icebergRestCatalogAddsTheCallersPropertiesToTheRestCatalog() {
        assertThat(TrinoEnvironment.icebergRestCatalog(
                        REST, Map.of("fs.native-s3.enabled", "true", "iceberg.rest-catalog.warehouse", "lake")))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "connector.name", "iceberg",
                        "iceberg.catalog.type", "rest",
                        "iceberg.rest-catalog.uri", "http://127.0.0.1:8181",
                        "fs.native-s3.enabled", "true",
                        "iceberg.rest-catalog.warehouse", "lake"));
        // The local-warehouse catalog of start() is the same file with the native local file system.
        assertThat(TrinoEnvironment.icebergRestCatalog(REST))
                .containsEntry("iceberg.rest-catalog.uri", "http://127.0.0.1:8181")
                .containsEntry("fs.native-local.enabled", "true")
                .containsEntry("local.location", "/");
    }

    @Test
    void icebergRestCatalogRefusesToReplaceWhatItSets() {
        assertThatThrownBy(() -> TrinoEnvironment.icebergRestCatalog(REST, Map.of("iceberg.catalog.type", "glue")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("icebergRestCatalog sets iceberg.catalog.type itself");
    }

    @Test
    void trinosEnvironmentHasNoMachineCloudCredentials() {
        Map<String, String> environment = new HashMap<>(Map.of(
                "PATH", "/usr/bin",
                "AWS_ACCESS_KEY_ID", "AKIAMACHINE",
                "AWS_SECRET_ACCESS_KEY", "machine-secret",
                "AWS_SESSION_TOKEN", "machine-token",
                "AWS_PROFILE", "ops",
                "AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt"));
        TrinoServer.withoutMachineCloudCredentials(environment, Path.of("/run/trino"));
        assertThat(environment)
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "PATH", "/usr/bin",
                        // Trust roots are not credentials: kept, so an HTTPS store still verifies.
                        "AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt",
                        "AWS_EC2_METADATA_DISABLED", "true",
                        "AWS_SHARED_CREDENTIALS_FILE", "/run/trino/no-aws-credentials",
                        "AWS_CONFIG_FILE", "/run/trino/no-aws-config"));
    }
}
