package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * One catalog's own warehouse: its location ({@code s3://}, {@code gs://}, {@code abfss://} or {@code file:}), the
 * properties its Iceberg {@code FileIO} is built with, under Iceberg's own names ({@code s3.endpoint},
 * {@code s3.path-style-access}, {@code client.region}, …), and where its credentials come from. Set in the YAML
 * ({@code warehouse.catalogs.<name>}) or on a catalog object added at run time ({@code storage}); neither ever holds
 * a key itself ({@link #check}).
 *
 * @param location the warehouse location, without a trailing slash
 * @param properties the FileIO's properties, with no credential among them
 * @param credentials where the credentials come from
 */
public record StorageSettings(String location, Map<String, String> properties, StorageCredentials credentials) {
    /** The keys of a catalog object's {@code storage} document, and of {@code warehouse.catalogs.<name>}. */
    public static final String PROPERTIES = "properties";

    public static final String CREDENTIALS = "credentials";

    /**
     * Property names that hold a credential: Iceberg's ({@code s3.access-key-id}, {@code s3.secret-access-key},
     * {@code s3.session-token}, {@code gcs.oauth2.token}, {@code adls.sas-token.*},
     * {@code adls.auth.shared-key.account.key}) and anything else that looks like one.
     */
    private static final Pattern SECRET_PROPERTY = Pattern.compile(
            "(?i).*(access-key|secret|session-token|oauth2\\.token|sas-token|account\\.key|password).*");

    /** Iceberg's S3 property names the credentials source sets; never given as properties. */
    static final String S3_ACCESS_KEY_ID = "s3.access-key-id";

    static final String S3_SECRET_ACCESS_KEY = "s3.secret-access-key";
    static final String S3_SESSION_TOKEN = "s3.session-token";
    static final String CLIENT_FACTORY = "client.factory";
    static final String ASSUME_ROLE_FACTORY = "org.apache.iceberg.aws.AssumeRoleAwsClientFactory";
    static final String ASSUME_ROLE_ARN = "client.assume-role.arn";
    static final String ASSUME_ROLE_REGION = "client.assume-role.region";
    static final String ASSUME_ROLE_EXTERNAL_ID = "client.assume-role.external-id";
    static final String CLIENT_REGION = "client.region";
    static final String S3_ENDPOINT = "s3.endpoint";
    /** Iceberg's choice of the AWS SDK's HTTP client for S3, by the short names Iceberg takes. */
    static final String S3_HTTP_CLIENT_TYPE = "http-client.type";
    /** The client class of each type Iceberg knows: only those on this server's class path can serve. */
    private static final Map<String, String> S3_HTTP_CLIENTS = ImmutableMap.of(
            "apache", "software.amazon.awssdk.http.apache.ApacheHttpClient",
            "urlconnection", "software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient");
    /** Iceberg's ADLS property names: the shared key's account and key, a SAS token and an endpoint per account host. */
    static final String ADLS_ACCOUNT_NAME = "adls.auth.shared-key.account.name";

    static final String ADLS_ACCOUNT_KEY = "adls.auth.shared-key.account.key";
    static final String ADLS_SAS_TOKEN_PREFIX = "adls.sas-token.";
    static final String ADLS_CONNECTION_STRING_PREFIX = "adls.connection-string.";

    /**
     * What marks an Azure connection string that holds a key or a SAS ({@code AccountKey=…}, {@code
     * SharedAccessSignature=…}); ADLSFileIO takes {@code adls.connection-string.<host>} as the account's endpoint, so
     * only a URL belongs there.
     */
    private static final Pattern SECRET_CONNECTION_STRING =
            Pattern.compile("(?i).*(accountkey|sharedaccesssignature|sig)=.*");

    public StorageSettings {
        location = Locations.stripSlash(requireNonNull(location, "location is null"));
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
        requireNonNull(credentials, "credentials is null");
    }

    /** The store the warehouse is on; refuses a scheme this server has no FileIO for. */
    public StorageSchemes.Family family() {
        return StorageSchemes.warehouseFamily(location, "location");
    }

    /**
     * Checks the settings as a whole, before any FileIO is built: a placeable location on a store this server serves,
     * no credential among the properties, an S3 warehouse with an endpoint or a region, and credentials that can be
     * found now (each environment variable set, the secret file readable).
     *
     * @throws CatalogException {@code UNSUPPORTED_LOCATION_SCHEME} or {@code INVALID_STORAGE_SETTINGS}, context
     *     {@code key} naming the setting ({@code location}, {@code properties.<name>}, {@code credentials.<name>})
     */
    public void check(Function<String, String> environment) {
        checkStored();
        credentials.check(family(), environment);
    }

    /**
     * What {@link #check} checks without reading credentials: for a catalog object, committed on one server and used
     * by any (whose environment is read when its FileIO is built).
     */
    public void checkStored() {
        Locations.checkPlaceable(location, "location");
        StorageSchemes.Family family = family();
        for (String key : properties.keySet()) {
            if (SECRET_PROPERTY.matcher(key).matches()) {
                throw new CatalogException(
                                ErrorCode.INVALID_STORAGE_SETTINGS,
                                "A storage property holds a credential: give it through the credentials settings (an"
                                        + " environment variable or a secret file), never inline")
                        .with("key", PROPERTIES + "." + key);
            }
            if (key.startsWith(ADLS_CONNECTION_STRING_PREFIX)
                    && SECRET_CONNECTION_STRING.matcher(properties.get(key)).matches()) {
                throw new CatalogException(
                                ErrorCode.INVALID_STORAGE_SETTINGS,
                                "A storage property holds a credential: an ADLS connection string here is the"
                                        + " account's endpoint URL only; give the key through the credentials settings")
                        .with("key", PROPERTIES + "." + key);
            }
            if (key.equals(CLIENT_FACTORY) || key.startsWith("client.assume-role.")) {
                throw new CatalogException(
                                ErrorCode.INVALID_STORAGE_SETTINGS,
                                "The AWS client factory is chosen by the credentials source (assume-role)")
                        .with("key", PROPERTIES + "." + key);
            }
        }
        if (family == StorageSchemes.Family.S3
                && isBlank(properties.get(S3_ENDPOINT))
                && isBlank(properties.get(CLIENT_REGION))) {
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS,
                            "An s3 warehouse needs properties.s3.endpoint (an S3-compatible store) or"
                                    + " properties.client.region (AWS)")
                    .with("key", PROPERTIES + "." + S3_ENDPOINT);
        }
        if (family == StorageSchemes.Family.S3 && properties.containsKey(S3_HTTP_CLIENT_TYPE)) {
            checkHttpClientType(properties.get(S3_HTTP_CLIENT_TYPE));
        }
        if (family == StorageSchemes.Family.LOCAL && credentials.source() != StorageCredentials.Source.DEFAULT) {
            throw new CatalogException(ErrorCode.INVALID_STORAGE_SETTINGS, "A file: warehouse takes no credentials")
                    .with("key", CREDENTIALS + "." + StorageCredentials.SOURCE);
        }
        if (credentials.source() == StorageCredentials.Source.ASSUME_ROLE && isBlank(properties.get(CLIENT_REGION))) {
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS,
                            "The assume-role credentials source needs properties.client.region (the STS region)")
                    .with("key", PROPERTIES + "." + CLIENT_REGION);
        }
    }

    /**
     * Iceberg loads the client class on the first request that needs it: a type this server does not ship would fail
     * every table operation with a bare class-loading error instead of once, here, naming the setting.
     */
    private static void checkHttpClientType(String type) {
        String clientClass = S3_HTTP_CLIENTS.get(type.strip().toLowerCase(java.util.Locale.ROOT));
        if (clientClass == null || !onClassPath(clientClass)) {
            List<String> served = S3_HTTP_CLIENTS.entrySet().stream()
                    .filter(client -> onClassPath(client.getValue()))
                    .map(Map.Entry::getKey)
                    .toList();
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS,
                            "Unsupported S3 HTTP client type '" + type + "': this server ships "
                                    + String.join(", ", served))
                    .with("key", PROPERTIES + "." + S3_HTTP_CLIENT_TYPE);
        }
    }

    private static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, StorageSettings.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The FileIO's properties: the configured ones plus the credentials, read now. Hand them to the FileIO only; the
     * secret values are also {@linkplain #secrets what errors are scrubbed of}.
     */
    Map<String, String> fileIoProperties(Function<String, String> environment) {
        Map<String, String> resolved = new LinkedHashMap<>(properties);
        switch (credentials.source()) {
            case DEFAULT -> {}
            case STATIC -> {
                if (family() == StorageSchemes.Family.ADLS) {
                    StorageCredentials.AzureKeys keys = credentials.resolveAzure(environment);
                    String host = adlsHost(location);
                    if (keys.accountKey() != null) {
                        // Iceberg's shared key needs the account's name; it is the first label of the host.
                        resolved.putIfAbsent(ADLS_ACCOUNT_NAME, host.split("\\.", 2)[0]);
                        resolved.put(ADLS_ACCOUNT_KEY, keys.accountKey());
                    } else {
                        resolved.put(ADLS_SAS_TOKEN_PREFIX + host, keys.sasToken());
                    }
                    return resolved;
                }
                StorageCredentials.Keys keys = credentials.resolve(environment);
                resolved.put(S3_ACCESS_KEY_ID, keys.accessKeyId());
                resolved.put(S3_SECRET_ACCESS_KEY, keys.secretAccessKey());
                if (keys.sessionToken() != null) {
                    resolved.put(S3_SESSION_TOKEN, keys.sessionToken());
                }
            }
            case ASSUME_ROLE -> {
                resolved.put(CLIENT_FACTORY, ASSUME_ROLE_FACTORY);
                resolved.put(ASSUME_ROLE_ARN, credentials.roleArn());
                resolved.put(ASSUME_ROLE_REGION, properties.get(CLIENT_REGION));
                if (credentials.externalId() != null) {
                    resolved.put(ASSUME_ROLE_EXTERNAL_ID, credentials.externalId());
                }
            }
        }
        return resolved;
    }

    /** The values a FileIO built from these settings holds that must never be shown: the static keys. */
    java.util.List<String> secrets(Function<String, String> environment) {
        if (credentials.source() != StorageCredentials.Source.STATIC) {
            return java.util.List.of();
        }
        if (family() == StorageSchemes.Family.ADLS) {
            StorageCredentials.AzureKeys keys = credentials.resolveAzure(environment);
            return java.util.List.of(keys.accountKey() != null ? keys.accountKey() : keys.sasToken());
        }
        StorageCredentials.Keys keys = credentials.resolve(environment);
        java.util.List<String> secrets = new java.util.ArrayList<>();
        secrets.add(keys.accessKeyId());
        secrets.add(keys.secretAccessKey());
        if (keys.sessionToken() != null) {
            secrets.add(keys.sessionToken());
        }
        return secrets;
    }

    /** The {@code storage} document of a catalog object: properties and credential references, never a key. */
    public BsonDocument encode() {
        BsonDocument properties = new BsonDocument();
        this.properties.forEach((key, value) -> properties.put(key, new BsonString(value)));
        BsonDocument credentials = new BsonDocument();
        this.credentials.references().forEach((key, value) -> credentials.put(key, new BsonString(value)));
        return new BsonDocument(PROPERTIES, properties).append(CREDENTIALS, credentials);
    }

    /**
     * The settings of a catalog object at {@code location} with the {@code storage} document {@code stored}.
     *
     * @throws CatalogException {@code INVALID_STORAGE_SETTINGS} for a document of the wrong shape
     */
    public static StorageSettings decode(String location, BsonDocument stored) {
        if (location == null || location.isBlank()) {
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS,
                            "A catalog with storage settings needs its warehouse location")
                    .with("key", "location");
        }
        for (String key : stored.keySet()) {
            if (!key.equals(PROPERTIES) && !key.equals(CREDENTIALS)) {
                throw new CatalogException(
                                ErrorCode.INVALID_STORAGE_SETTINGS,
                                "Unknown storage setting: expected properties or credentials")
                        .with("key", "storage." + key);
            }
        }
        return new StorageSettings(
                location, strings(stored, PROPERTIES), StorageCredentials.fromReferences(strings(stored, CREDENTIALS)));
    }

    private static Map<String, String> strings(BsonDocument stored, String key) {
        BsonValue value = stored.get(key);
        Map<String, String> map = new LinkedHashMap<>();
        if (value == null || value.isNull()) {
            return map;
        }
        if (!value.isDocument()) {
            throw new CatalogException(ErrorCode.INVALID_STORAGE_SETTINGS, "A storage setting must be a document")
                    .with("key", "storage." + key);
        }
        for (Map.Entry<String, BsonValue> entry : value.asDocument().entrySet()) {
            if (!entry.getValue().isString()) {
                throw new CatalogException(
                                ErrorCode.INVALID_STORAGE_SETTINGS, "A storage setting's value must be a string")
                        .with("key", "storage." + key + "." + entry.getKey());
            }
            map.put(entry.getKey(), entry.getValue().asString().getValue());
        }
        return map;
    }

    /**
     * The account host of an ADLS location ({@code abfss://container@account.dfs.core.windows.net/path}), which keys
     * Iceberg's per-account properties.
     */
    static String adlsHost(String location) {
        String rest = location.substring(location.indexOf("://") + 3);
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        int at = authority.indexOf('@');
        return at < 0 ? authority : authority.substring(at + 1);
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }
}
