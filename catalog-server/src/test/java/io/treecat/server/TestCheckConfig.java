package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code treecat check-config}: the defaults pass; a misspelt key or a bad value fails and is named. */
class TestCheckConfig {
    @TempDir
    Path directory;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int check(String yaml) throws IOException {
        Path file = directory.resolve("treecat.yml");
        Files.writeString(file, yaml);
        return TreeCatMain.run(new String[] {"check-config", file.toString()}, new ByteArrayOutputStream(), err);
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void acceptsTheEmbeddedDefaultAndAFileOfOverrides() throws IOException {
        assertThat(TreeCatMain.run(new String[] {"check-config"}, new ByteArrayOutputStream(), err))
                .isEqualTo(0);
        assertThat(
                        check(
                                "storage:\n  data-dir: /var/lib/treecat\n  rocksdb:\n    block-cache-size: 1GiB\ntransactions:\n  protocol: MGL\n"))
                .isEqualTo(0);
        assertThat(errors()).isEmpty();
    }

    @Test
    void rejectsWhatTheStartRefusesNamingTheSetting() throws IOException {
        assertThat(check("grpc:\n  host: 0.0.0.0\n")).isEqualTo(1);
        assertThat(errors()).contains("grpc.host is 0.0.0.0, which serves other machines, but auth.enabled is false");

        err.reset();
        assertThat(check("auth:\n  allow-remote-without-auth: true\ngrpc:\n  host: 0.0.0.0\n"))
                .isEqualTo(0);

        err.reset();
        // Hive's clients authenticate with SASL PLAIN: auth on needs no hms.allow-unauthenticated.
        assertThat(check("auth:\n  enabled: true\n")).isEqualTo(0);
        err.reset();
        assertThat(check("auth:\n  enabled: true\nhms:\n  allow-unauthenticated: true\n"))
                .isEqualTo(0);
    }

    @Test
    void checksEachOidcIssuerNamingTheEntry() throws IOException {
        String entry = "auth:\n  oidc:\n    - name: corp\n      issuer: %s\n      audience: treecat\n%s";
        assertThat(check(entry.formatted("https://keycloak.example.com/realms/lake", "")))
                .isEqualTo(0);

        assertThat(check(entry.formatted("http://keycloak.example.com/realms/lake", "")))
                .isEqualTo(1);
        assertThat(errors())
                .contains("auth.oidc[0] (corp): issuer must be https:// (http:// is accepted only on a loopback"
                        + " address): http://keycloak.example.com/realms/lake");

        err.reset();
        assertThat(check(entry.formatted("https://idp.example.com", "      algorithms: [HS256]\n")))
                .isEqualTo(1);
        assertThat(errors()).contains("auth.oidc[0] (corp): algorithms: HS256 is not accepted for an external issuer");

        err.reset();
        assertThat(check(entry.formatted("treecat", ""))).isEqualTo(1);
        assertThat(errors()).contains("auth.oidc[0] (corp): issuer must be an https:// URL with a host: treecat");

        err.reset();
        assertThat(check("auth:\n  oidc:\n    - name: corp\n      issuer: https://a.example.com\n      audience: x\n"
                        + "    - name: corp\n      issuer: https://b.example.com\n      audience: x\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("auth.oidc: name corp is given to two issuers");

        err.reset();
        assertThat(check("auth:\n  oidc:\n    - name: corp\n      issuer: https://a.example.com\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("auth.oidc[0].audience must not be blank");
    }

    @Test
    void theConsolesIssuerIsOneOfTheAuthIssuers() throws IOException {
        String issuers = "  oidc:\n    - name: corp\n      issuer: https://keycloak.example.com/realms/lake\n"
                + "      audience: treecat\n";
        assertThat(check("auth:\n  enabled: true\n" + issuers
                        + "console:\n  oidc:\n    issuer: corp\n    client-id: treecat-console\n"))
                .isEqualTo(0);

        assertThat(check("auth:\n  enabled: true\n" + issuers
                        + "console:\n  oidc:\n    issuer: other\n    client-id: treecat-console\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("console.oidc.issuer: no auth.oidc entry is named other");

        err.reset();
        assertThat(check("auth:\n" + issuers + "console:\n  oidc:\n    issuer: corp\n    client-id: treecat-console\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("console.oidc needs auth.enabled");

        err.reset();
        assertThat(check("auth:\n  enabled: true\n" + issuers + "console:\n  oidc:\n    issuer: corp\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("console.oidc.clientId");
    }

    @Test
    void rejectsAMisspeltKeyNamingIt() throws IOException {
        assertThat(check("storage:\n  data-dri: /tmp/x\n")).isEqualTo(1);
        assertThat(errors()).contains("Unrecognized field at: storage.data-dri").contains("data-dir");
    }

    @Test
    void rejectsBadValuesNamingTheKey() throws IOException {
        assertThat(check("transactions:\n  protocol: FASTEST\n")).isEqualTo(1);
        assertThat(errors())
                .contains(
                        "Incorrect type of value at: transactions.protocol; is of type: String, expected: ConcurrencyProtocol");

        err.reset();
        assertThat(check("grpc:\n  port: 70000\n")).isEqualTo(1);
        assertThat(errors()).contains("grpc.port must be less than or equal to 65535");
    }

    @Test
    void checksEachCatalogsWarehouseNamingTheKey() throws IOException {
        Path secret = directory.resolve("s3.properties");
        Files.writeString(secret, "access-key-id=AKIDEXAMPLE\nsecret-access-key=example/secret\n");
        String good = "warehouse:\n  catalogs:\n    lake:\n      location: s3://bucket/lake\n      properties:\n"
                + "        s3.endpoint: http://127.0.0.1:9000\n        s3.path-style-access: \"true\"\n"
                + "        client.region: us-east-1\n      credentials:\n        source: static\n"
                + "        secret-file: " + secret + "\n";
        assertThat(check(good)).as(errors()).isEqualTo(0);

        err.reset();
        assertThat(check("warehouse:\n  catalogs:\n    lake:\n      location: ftp://host/lake\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("warehouse.catalogs[lake].location Unsupported location scheme: ftp");

        err.reset();
        assertThat(check("warehouse:\n  catalogs:\n    lake:\n      location: s3://bucket/lake\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains(
                        "warehouse.catalogs[lake].properties.s3.endpoint An s3 warehouse needs properties.s3.endpoint");

        err.reset();
        assertThat(check("warehouse:\n  catalogs:\n    lake:\n      location: s3://bucket/lake\n      properties:\n"
                        + "        client.region: us-east-1\n        s3.secret-access-key: Zq8xSecretValue\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains(
                        "warehouse.catalogs[lake].properties.s3.secret-access-key A storage property holds a credential")
                .doesNotContain("Zq8xSecretValue");

        err.reset();
        assertThat(check("warehouse:\n  catalogs:\n    lake:\n      location: s3://bucket/lake\n      properties:\n"
                        + "        client.region: us-east-1\n      credentials:\n        source: static\n"
                        + "        access-key-id-env: TREECAT_TEST_SURELY_UNSET_1\n"
                        + "        secret-access-key-env: TREECAT_TEST_SURELY_UNSET_2\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains("warehouse.catalogs[lake].credentials.access-key-id-env The environment variable"
                        + " TREECAT_TEST_SURELY_UNSET_1 is not set");
    }

    @Test
    void checksGcsAndAdlsWarehousesNamingTheKey() throws IOException {
        assertThat(check("warehouse:\n  catalogs:\n    g:\n      location: gs://bucket/lake\n      properties:\n"
                        + "        gcs.project-id: p\n        gcs.no-auth: \"true\"\n"))
                .as(errors())
                .isEqualTo(0);

        err.reset();
        assertThat(check("warehouse:\n  catalogs:\n    g:\n      location: gs://bucket/lake\n      properties:\n"
                        + "        gcs.oauth2.token: ya29.Zq8xTokenValue\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains("warehouse.catalogs[g].properties.gcs.oauth2.token A storage property holds a credential")
                .doesNotContain("Zq8xTokenValue");

        err.reset();
        assertThat(check("warehouse:\n  catalogs:\n    g:\n      location: gs://bucket/lake\n      credentials:\n"
                        + "        source: static\n        access-key-id-env: A\n        secret-access-key-env: B\n"))
                .isEqualTo(1);
        assertThat(errors()).contains("warehouse.catalogs[g].credentials.source A gs warehouse takes the default");

        Path secret = directory.resolve("adls.properties");
        Files.writeString(secret, "account-key=Zq8xAccountKeyValue==\n");
        String adls = "warehouse:\n  catalogs:\n    a:\n      location: abfss://lake@acct.dfs.core.windows.net/w\n";
        err.reset();
        assertThat(check(adls + "      credentials:\n        source: static\n        secret-file: " + secret + "\n"))
                .as(errors())
                .isEqualTo(0);

        err.reset();
        assertThat(check(adls + "      credentials:\n        source: static\n"
                        + "        account-key-env: TREECAT_TEST_SURELY_UNSET_3\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains("warehouse.catalogs[a].credentials.account-key-env The environment variable"
                        + " TREECAT_TEST_SURELY_UNSET_3 is not set");

        err.reset();
        assertThat(check(adls + "      properties:\n        adls.connection-string.acct.dfs.core.windows.net:"
                        + " \"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zq8xAccountKeyValue==\"\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains("warehouse.catalogs[a].properties.adls.connection-string.acct.dfs.core.windows.net A storage"
                        + " property holds a credential")
                .doesNotContain("Zq8xAccountKeyValue");

        err.reset();
        assertThat(check(adls + "      properties:\n        adls.auth.shared-key.account.key: Zq8xAccountKeyValue==\n"))
                .isEqualTo(1);
        assertThat(errors())
                .contains("warehouse.catalogs[a].properties.adls.auth.shared-key.account.key A storage property")
                .doesNotContain("Zq8xAccountKeyValue");
    }
}
