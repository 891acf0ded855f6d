package io.treecat.lakehouse.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A catalog's storage settings: what is refused (naming the key, never a value), what is stored, what is resolved. */
class TestStorageSettings {
    private static final Map<String, String> S3 = Map.of("s3.endpoint", "http://127.0.0.1:9000");
    private static final Function<String, String> ENV = Map.of("KEY_ID", "AKIDEXAMPLE", "SECRET", "s3cr3t/value")::get;

    @TempDir
    Path directory;

    private static StorageCredentials fromEnvironment() {
        return new StorageCredentials(StorageCredentials.Source.STATIC, "KEY_ID", "SECRET", null, null, null, null);
    }

    private static void assertRefused(StorageSettings settings, ErrorCode code, String message, String key) {
        assertThatThrownBy(() -> settings.check(ENV))
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(code);
                    // Settings name their key; a location's scheme names its field.
                    assertThat(e.context().getOrDefault("key", e.context().get("field")))
                            .isEqualTo(key);
                })
                .hasMessageStartingWith(message);
    }

    @Test
    void refusesWhatCannotServeNamingTheKey() {
        assertRefused(
                new StorageSettings("ftp://host/x", Map.of(), StorageCredentials.defaultChain()),
                ErrorCode.UNSUPPORTED_LOCATION_SCHEME,
                "Unsupported location scheme: ftp",
                "location");
        assertThatThrownBy(() ->
                        new StorageSettings("gs://bucket/x", Map.of(), StorageCredentials.defaultChain()).check(ENV))
                .hasMessage("Unsupported warehouse scheme: gs (this server is built without"
                        + " org.apache.iceberg.gcp.gcs.GCSFileIO)");
        assertRefused(
                new StorageSettings("s3://bucket/x", Map.of(), StorageCredentials.defaultChain()),
                ErrorCode.INVALID_STORAGE_SETTINGS,
                "An s3 warehouse needs properties.s3.endpoint",
                "properties.s3.endpoint");
        for (String key : java.util.List.of(
                "s3.access-key-id",
                "s3.secret-access-key",
                "s3.session-token",
                "gcs.oauth2.token",
                "adls.sas-token.x")) {
            assertRefused(
                    new StorageSettings("s3://bucket/x", Map.of("s3.endpoint", "e", key, "v"), fromEnvironment()),
                    ErrorCode.INVALID_STORAGE_SETTINGS,
                    "A storage property holds a credential",
                    "properties." + key);
        }
        assertRefused(
                new StorageSettings(
                        "s3://bucket/x",
                        S3,
                        new StorageCredentials(
                                StorageCredentials.Source.STATIC, "KEY_ID", "UNSET", null, null, null, null)),
                ErrorCode.INVALID_STORAGE_SETTINGS,
                "The environment variable UNSET is not set",
                "credentials.secret-access-key-env");
        assertRefused(
                new StorageSettings(
                        "s3://bucket/x",
                        S3,
                        new StorageCredentials(
                                StorageCredentials.Source.ASSUME_ROLE, null, null, null, null, "arn", null)),
                ErrorCode.INVALID_STORAGE_SETTINGS,
                "The assume-role credentials source needs properties.client.region",
                "properties.client.region");
        assertRefused(
                new StorageSettings(
                        "s3://bucket/x",
                        Map.of("client.region", "eu-west-1"),
                        new StorageCredentials(
                                StorageCredentials.Source.ASSUME_ROLE, null, null, null, null, null, null)),
                ErrorCode.INVALID_STORAGE_SETTINGS,
                "The assume-role credentials source needs a role",
                "credentials.role-arn");
    }

    @Test
    void anS3HttpClientTypeTheServerDoesNotShipIsRefusedNamingTheSetting() {
        // Iceberg would fail each table operation on loading the class; the setting is refused once, up front.
        for (String type : java.util.List.of("urlconnection", "netty", "")) {
            Map<String, String> properties = new java.util.HashMap<>(S3);
            properties.put("http-client.type", type);
            assertRefused(
                    new StorageSettings("s3://bucket/x", properties, StorageCredentials.defaultChain()),
                    ErrorCode.INVALID_STORAGE_SETTINGS,
                    "Unsupported S3 HTTP client type '" + type + "': this server ships apache",
                    "properties.http-client.type");
        }
        Map<String, String> apache = new java.util.HashMap<>(S3);
        apache.put("http-client.type", "apache");
        new StorageSettings("s3://bucket/x", apache, StorageCredentials.defaultChain()).check(ENV);
    }

    @Test
    void resolvesKeysFromTheEnvironmentOrASecretFileIntoIcebergsProperties() throws Exception {
        StorageSettings settings = new StorageSettings("s3://bucket/x", S3, fromEnvironment());
        settings.check(ENV);
        assertThat(settings.fileIoProperties(ENV))
                .containsEntry("s3.endpoint", "http://127.0.0.1:9000")
                .containsEntry("s3.access-key-id", "AKIDEXAMPLE")
                .containsEntry("s3.secret-access-key", "s3cr3t/value");
        Path file = directory.resolve("keys.properties");
        Files.writeString(file, "access-key-id=FROMFILE\nsecret-access-key=file/secret\nsession-token=tok\n");
        StorageSettings fromFile = new StorageSettings(
                "s3://bucket/x",
                S3,
                new StorageCredentials(
                        StorageCredentials.Source.STATIC, null, null, null, file.toString(), null, null));
        assertThat(fromFile.secrets(ENV)).containsExactly("FROMFILE", "file/secret", "tok");
        StorageSettings role = new StorageSettings(
                "s3://bucket/x",
                Map.of("client.region", "eu-west-1"),
                new StorageCredentials(
                        StorageCredentials.Source.ASSUME_ROLE, null, null, null, null, "arn:aws:iam::1:role/r", "ext"));
        role.check(ENV);
        assertThat(role.fileIoProperties(ENV))
                .containsEntry("client.factory", "org.apache.iceberg.aws.AssumeRoleAwsClientFactory")
                .containsEntry("client.assume-role.arn", "arn:aws:iam::1:role/r")
                .containsEntry("client.assume-role.region", "eu-west-1")
                .containsEntry("client.assume-role.external-id", "ext");
    }

    @Test
    void theStoredFormHoldsReferencesOnlyAndRoundTrips() {
        StorageSettings settings = new StorageSettings("s3://bucket/x/", S3, fromEnvironment());
        assertThat(settings.location()).isEqualTo("s3://bucket/x");
        String stored = settings.encode().toJson();
        assertThat(stored).contains("KEY_ID").doesNotContain("AKIDEXAMPLE").doesNotContain("s3cr3t");
        assertThat(StorageSettings.decode("s3://bucket/x", settings.encode())).isEqualTo(settings);
        assertThatThrownBy(() -> StorageSettings.decode(
                        "s3://bucket/x",
                        org.bson.BsonDocument.parse("{credentials: {source: 'static', 'access-key-id': 'AKID'}}")))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("Unknown credentials setting")
                .hasMessageNotContaining("AKID'");
    }

    @Test
    void storeFailuresBecomeUnavailableScrubbedAndOnlyForObjectStores() {
        StoreFileIO store = new StoreFileIO(new LocalFileIO(), java.util.List.of("AKIDEXAMPLE", "s3cr3t/value"));
        Warehouse onStore = new Warehouse("lake", "s3://bucket/x", store);
        RuntimeException failure = new RuntimeIOException(
                new java.io.IOException("denied for AKIDEXAMPLE signed with s3cr3t/value"), "Failed to write");
        RuntimeException translated = StoreFailures.translate(onStore, failure);
        assertThat(translated)
                .isInstanceOfSatisfying(CatalogException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_STORE_UNAVAILABLE);
                    assertThat(e.context()).containsEntry("catalog", "lake");
                })
                .hasMessage("The catalog's object store failed: denied for **** signed with ****");
        // A missing file stays Iceberg's NotFoundException; a bug stays a bug; a local warehouse's I/O error stays.
        NotFoundException missing = new NotFoundException("gone");
        assertThat(StoreFailures.translate(onStore, missing)).isSameAs(missing);
        IllegalStateException bug = new IllegalStateException("bug");
        assertThat(StoreFailures.translate(onStore, bug)).isSameAs(bug);
        Warehouse local = new Warehouse("w", "file:/w", new LocalFileIO());
        assertThat(StoreFailures.translate(local, failure)).isSameAs(failure);
    }

    @Test
    void anAzureAuthenticationFailureKeepsItsStatusNotTheSdksAdvice() {
        // What azure-storage puts before the status of a 403 (StorageImplUtils), ahead of the store's own words.
        String advice = "If you are using a StorageSharedKeyCredential, and the server returned an error message that"
                + " says 'Signature did not match', you can compare the string to sign with the one generated by the"
                + " SDK. To log the string to sign, pass in the context key value pair"
                + " 'Azure-Storage-Log-String-To-Sign': true to the appropriate method call.\n"
                + "If you are using a SAS token, and the server returned an error message that says 'Signature did not"
                + " match', you can compare the string to sign with the one generated by the SDK. To log the string to"
                + " sign, pass in the context key value pair 'Azure-Storage-Log-String-To-Sign': true to the"
                + " appropriate generateSas method call.\n"
                + "Please remember to disable 'Azure-Storage-Log-String-To-Sign' before going to production as this"
                + " string can potentially contain PII.\n";
        String status = "Status code 403, \"{\"error\":{\"code\":\"AuthenticationFailed\"}}\"";
        StoreFileIO store = new StoreFileIO(new LocalFileIO(), java.util.List.of());
        Warehouse onStore = new Warehouse("lake", "abfss://c@account.dfs.core.windows.net/x", store);
        RuntimeException failure = new java.io.UncheckedIOException(new java.io.IOException(advice + status));
        assertThat(StoreFailures.translate(onStore, failure))
                .hasMessage("The catalog's object store failed: " + status);
    }

    @Test
    void catalogWarehousesServeConfiguredStoredAndRootCatalogsAndCloseTheirFileIOs() {
        AtomicReference<Optional<StorageSettings>> stored = new AtomicReference<>(Optional.empty());
        StorageSettings own =
                new StorageSettings("file:" + directory.resolve("own"), Map.of(), StorageCredentials.defaultChain());
        CatalogWarehouses warehouses = new CatalogWarehouses(
                Warehouses.underRoot("file:/root", new LocalFileIO()),
                ExternalLocations.ALLOWED,
                Map.of("configured", own),
                name -> name.equals("runtime") ? stored.get() : Optional.empty(),
                ENV);
        assertThat(warehouses.forCatalog("configured").location()).isEqualTo(own.location());
        assertThat(warehouses.forCatalog("other").location()).isEqualTo("file:/root/other");
        assertThat(warehouses.forCatalog("runtime").location()).isEqualTo("file:/root/runtime");

        stored.set(Optional.of(new StorageSettings("file:/elsewhere/a", Map.of(), StorageCredentials.defaultChain())));
        Warehouse first = warehouses.forCatalog("runtime");
        assertThat(first.location()).isEqualTo("file:/elsewhere/a");
        assertThat(warehouses.forCatalog("runtime")).isSameAs(first);
        stored.set(Optional.of(new StorageSettings("file:/elsewhere/b", Map.of(), StorageCredentials.defaultChain())));
        assertThat(warehouses.forCatalog("runtime").location()).isEqualTo("file:/elsewhere/b");
        warehouses.close();

        // A bad configured catalog fails construction, naming its key.
        assertThatThrownBy(() -> new CatalogWarehouses(
                        Warehouses.underRoot("file:/root", new LocalFileIO()),
                        ExternalLocations.ALLOWED,
                        Map.of("bad", new StorageSettings("s3://b/x", Map.of(), StorageCredentials.defaultChain())),
                        name -> Optional.empty(),
                        ENV))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("An s3 warehouse needs");
    }

    @Test
    void warehousesRefuseUnknownSchemesAndWritesOffTheirStore() {
        Warehouse s3 = new Warehouse("lake", "s3://bucket/lake", new LocalFileIO());
        assertThat(s3.check("s3a://bucket/lake/t", "location")).isEqualTo("s3a://bucket/lake/t");
        assertThat(s3.check("hdfs://nn/x", "location")).isEqualTo("hdfs://nn/x");
        assertThatThrownBy(() -> s3.check("foo://x/y", "location"))
                .isInstanceOfSatisfying(
                        CatalogException.class,
                        e -> assertThat(e.context())
                                .containsEntry("scheme", "foo")
                                .containsEntry("field", "location"))
                .hasMessage("Unsupported location scheme: foo");
        assertThat(s3.checkWritable("s3a://bucket/lake/t/metadata/f", "metadata file"))
                .isEqualTo("s3a://bucket/lake/t/metadata/f");
        assertThatThrownBy(() -> s3.checkWritable("file:/tmp/t/metadata/f", "metadata file"))
                .hasMessage("Unsupported location scheme: file");
        // s3a and s3 name one store: inside the warehouse for external-locations REFUSED.
        assertThat(Locations.isInside("s3a://bucket/lake/t", "s3://bucket/lake"))
                .isTrue();
        assertThat(Locations.isInside("gs://bucket/lake/t", "s3://bucket/lake")).isFalse();
    }
}
