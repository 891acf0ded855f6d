package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/**
 * Where a catalog's object-store credentials come from. Only references are kept (in the YAML, and in the tree for a
 * catalog added at run time): the names of environment variables, or the path of a mounted secret file, never a key
 * itself. The keys are read when the catalog's {@code FileIO} is built and go only into it.
 *
 * @param source how the credentials are found
 * @param accessKeyIdVariable with {@link Source#STATIC}: the environment variable holding the access key id
 * @param secretAccessKeyVariable with {@link Source#STATIC}: the environment variable holding the secret key
 * @param sessionTokenVariable with {@link Source#STATIC}: the environment variable holding a session token (optional)
 * @param secretFile with {@link Source#STATIC}, instead of the variables: a properties file (a mounted Kubernetes
 *     secret) with {@code access-key-id}, {@code secret-access-key} and optionally {@code session-token}
 * @param roleArn with {@link Source#ASSUME_ROLE}: the role the server assumes (Iceberg's
 *     {@code AssumeRoleAwsClientFactory}, through STS); with any source of an S3 catalog: the role whose credentials
 *     are vended to clients (STS {@code AssumeRole} with a session policy for one table), signed by the catalog's own
 *     identity (the static keys, or the SDK's default chain)
 * @param externalId the external id the role's trust policy asks for (optional)
 * @param stsEndpoint where vended credentials are asked for (optional): by default the catalog's {@code s3.endpoint}
 *     when it sets one (S3-compatible stores that serve STS, MinIO, moto, serve it there), else AWS's regional STS
 * @param vendedDurationSeconds how long vended credentials last (STS {@code DurationSeconds}); null: one hour
 * @param refreshMarginSeconds how much earlier than STS's expiry clients are told vended credentials expire
 *     ({@code s3.session-token-expires-at-ms}), so they refresh that much sooner; null: 0
 * @param accountKeyVariable with {@link Source#STATIC} on an ADLS warehouse: the environment variable holding the
 *     storage account's shared key (Iceberg's {@code adls.auth.shared-key.account.key}); on ADLS the secret file holds
 *     {@code account-key} or {@code sas-token} instead
 */
public record StorageCredentials(
        Source source,
        String accessKeyIdVariable,
        String secretAccessKeyVariable,
        String sessionTokenVariable,
        String secretFile,
        String roleArn,
        String externalId,
        String stsEndpoint,
        Integer vendedDurationSeconds,
        Integer refreshMarginSeconds,
        String accountKeyVariable) {
    /** The keys of the credentials' settings, in YAML ({@code credentials.*}) and on a catalog object. */
    public static final String SOURCE = "source";

    public static final String ACCESS_KEY_ID_ENV = "access-key-id-env";
    public static final String SECRET_ACCESS_KEY_ENV = "secret-access-key-env";
    public static final String SESSION_TOKEN_ENV = "session-token-env";
    public static final String SECRET_FILE = "secret-file";
    public static final String ROLE_ARN = "role-arn";
    public static final String EXTERNAL_ID = "external-id";
    public static final String STS_ENDPOINT = "sts-endpoint";
    public static final String VENDED_DURATION_SECONDS = "vended-duration-seconds";
    public static final String REFRESH_MARGIN_SECONDS = "refresh-margin-seconds";

    /** STS's bounds on {@code DurationSeconds} (the upper one also needs the role's own maximum session duration). */
    static final int MIN_VENDED_SECONDS = 900;

    static final int MAX_VENDED_SECONDS = 43_200;
    static final int DEFAULT_VENDED_SECONDS = 3600;
    public static final String ACCOUNT_KEY_ENV = "account-key-env";

    /** The keys of a secret file. */
    static final String FILE_ACCESS_KEY_ID = "access-key-id";

    static final String FILE_SECRET_ACCESS_KEY = "secret-access-key";
    static final String FILE_SESSION_TOKEN = "session-token";
    /** The keys of an ADLS warehouse's secret file: the account's shared key, or a SAS token. */
    static final String FILE_ACCOUNT_KEY = "account-key";

    static final String FILE_SAS_TOKEN = "sas-token";

    /** How credentials are found. */
    public enum Source {
        /** The SDK's default chain: environment, system properties, web identity (IRSA), instance profile. */
        DEFAULT,
        /** Static keys, from environment variables or a mounted secret file. */
        STATIC,
        /** A role the server assumes through STS. */
        ASSUME_ROLE;

        /** The name in YAML and on a catalog object: {@code default}, {@code static}, {@code assume-role}. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        public static Source fromConfigName(String name) {
            for (Source source : values()) {
                if (source.configName().equals(name)) {
                    return source;
                }
            }
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS,
                            "Invalid credentials source: expected default, static or assume-role")
                    .with("key", "credentials." + SOURCE);
        }
    }

    public StorageCredentials {
        requireNonNull(source, "source is null");
    }

    /** Credentials with neither vending settings beyond the role nor an ADLS account key variable. */
    public StorageCredentials(
            Source source,
            String accessKeyIdVariable,
            String secretAccessKeyVariable,
            String sessionTokenVariable,
            String secretFile,
            String roleArn,
            String externalId) {
        this(
                source,
                accessKeyIdVariable,
                secretAccessKeyVariable,
                sessionTokenVariable,
                secretFile,
                roleArn,
                externalId,
                null,
                null,
                null,
                null);
    }

    /** Credentials of an S3 catalog with vending settings. */
    public StorageCredentials(
            Source source,
            String accessKeyIdVariable,
            String secretAccessKeyVariable,
            String sessionTokenVariable,
            String secretFile,
            String roleArn,
            String externalId,
            String stsEndpoint,
            Integer vendedDurationSeconds,
            Integer refreshMarginSeconds) {
        this(
                source,
                accessKeyIdVariable,
                secretAccessKeyVariable,
                sessionTokenVariable,
                secretFile,
                roleArn,
                externalId,
                stsEndpoint,
                vendedDurationSeconds,
                refreshMarginSeconds,
                null);
    }

    /** The SDK's default chain. */
    public static StorageCredentials defaultChain() {
        return new StorageCredentials(Source.DEFAULT, null, null, null, null, null, null);
    }

    /** How long vended credentials last. */
    public java.time.Duration vendedDuration() {
        return java.time.Duration.ofSeconds(
                vendedDurationSeconds == null ? DEFAULT_VENDED_SECONDS : vendedDurationSeconds);
    }

    /** How much earlier than their real expiry clients are told vended credentials expire. */
    public java.time.Duration refreshMargin() {
        return java.time.Duration.ofSeconds(refreshMarginSeconds == null ? 0 : refreshMarginSeconds);
    }

    /** The references as a map of their keys (only those set), as they are stored and shown. */
    public Map<String, String> references() {
        Map<String, String> map = new LinkedHashMap<>();
        map.put(SOURCE, source.configName());
        putIfSet(map, ACCESS_KEY_ID_ENV, accessKeyIdVariable);
        putIfSet(map, SECRET_ACCESS_KEY_ENV, secretAccessKeyVariable);
        putIfSet(map, SESSION_TOKEN_ENV, sessionTokenVariable);
        putIfSet(map, SECRET_FILE, secretFile);
        putIfSet(map, ROLE_ARN, roleArn);
        putIfSet(map, EXTERNAL_ID, externalId);
        putIfSet(map, STS_ENDPOINT, stsEndpoint);
        putIfSet(map, VENDED_DURATION_SECONDS, vendedDurationSeconds == null ? null : vendedDurationSeconds.toString());
        putIfSet(map, REFRESH_MARGIN_SECONDS, refreshMarginSeconds == null ? null : refreshMarginSeconds.toString());
        putIfSet(map, ACCOUNT_KEY_ENV, accountKeyVariable);
        return map;
    }

    /**
     * The credentials from their stored references; an unknown key is refused (a key itself given by mistake, under
     * any name, never stays in the tree).
     */
    public static StorageCredentials fromReferences(Map<String, String> references) {
        for (String key : references.keySet()) {
            if (!key.equals(SOURCE)
                    && !key.equals(ACCESS_KEY_ID_ENV)
                    && !key.equals(SECRET_ACCESS_KEY_ENV)
                    && !key.equals(SESSION_TOKEN_ENV)
                    && !key.equals(SECRET_FILE)
                    && !key.equals(ROLE_ARN)
                    && !key.equals(EXTERNAL_ID)
                    && !key.equals(STS_ENDPOINT)
                    && !key.equals(VENDED_DURATION_SECONDS)
                    && !key.equals(REFRESH_MARGIN_SECONDS)
                    && !key.equals(ACCOUNT_KEY_ENV)) {
                throw new CatalogException(
                                ErrorCode.INVALID_STORAGE_SETTINGS,
                                "Unknown credentials setting: expected source, access-key-id-env,"
                                        + " secret-access-key-env, session-token-env, secret-file, role-arn,"
                                        + " external-id, sts-endpoint, vended-duration-seconds,"
                                        + " refresh-margin-seconds or account-key-env")
                        .with("key", "credentials." + key);
            }
        }
        String source = references.get(SOURCE);
        return new StorageCredentials(
                source == null ? Source.DEFAULT : Source.fromConfigName(source),
                references.get(ACCESS_KEY_ID_ENV),
                references.get(SECRET_ACCESS_KEY_ENV),
                references.get(SESSION_TOKEN_ENV),
                references.get(SECRET_FILE),
                references.get(ROLE_ARN),
                references.get(EXTERNAL_ID),
                references.get(STS_ENDPOINT),
                seconds(references, VENDED_DURATION_SECONDS),
                seconds(references, REFRESH_MARGIN_SECONDS),
                references.get(ACCOUNT_KEY_ENV));
    }

    private static Integer seconds(Map<String, String> references, String key) {
        String value = references.get(key);
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value.strip());
        } catch (NumberFormatException e) {
            throw invalid("A number of seconds is expected", key);
        }
    }

    /**
     * Checks that the references fit the source and can be resolved now (each variable set, the file readable).
     *
     * @throws CatalogException {@code INVALID_STORAGE_SETTINGS}, context {@code key} naming the setting
     */
    void check(StorageSchemes.Family family, Function<String, String> environment) {
        checkVending();
        if (family == StorageSchemes.Family.GCS && source != Source.DEFAULT) {
            // Iceberg's GCSFileIO takes no key of its own: Google's Application Default Credentials, whose
            // GOOGLE_APPLICATION_CREDENTIALS names a service-account JSON file, or gcs.no-auth for an emulator.
            throw invalid(
                    "A gs warehouse takes the default credentials source (Google's Application Default Credentials)",
                    SOURCE);
        }
        if (family == StorageSchemes.Family.ADLS && source == Source.STATIC) {
            refuseSet(ACCESS_KEY_ID_ENV, accessKeyIdVariable);
            refuseSet(SECRET_ACCESS_KEY_ENV, secretAccessKeyVariable);
            refuseSet(SESSION_TOKEN_ENV, sessionTokenVariable);
            refuseSet(ROLE_ARN, roleArn);
            resolveAzure(environment);
            return;
        }
        if (family == StorageSchemes.Family.ADLS && source == Source.ASSUME_ROLE) {
            throw invalid("The assume-role credentials source is for s3 warehouses", SOURCE);
        }
        if (family != StorageSchemes.Family.ADLS) {
            refuseSet(ACCOUNT_KEY_ENV, accountKeyVariable);
        }
        switch (source) {
            case DEFAULT -> {
                refuseSet(ACCOUNT_KEY_ENV, accountKeyVariable);
                refuseSet(ACCESS_KEY_ID_ENV, accessKeyIdVariable);
                refuseSet(SECRET_ACCESS_KEY_ENV, secretAccessKeyVariable);
                refuseSet(SESSION_TOKEN_ENV, sessionTokenVariable);
                refuseSet(SECRET_FILE, secretFile);
            }
            case STATIC -> resolve(environment);
            case ASSUME_ROLE -> {
                if (isBlank(roleArn)) {
                    throw invalid("The assume-role credentials source needs a role", ROLE_ARN);
                }
                if (accessKeyIdVariable != null || secretAccessKeyVariable != null || secretFile != null) {
                    // The server's own identity assumes the role: through the default chain.
                    throw invalid(
                            "The assume-role credentials source takes its base identity from the SDK's default chain",
                            accessKeyIdVariable != null
                                    ? ACCESS_KEY_ID_ENV
                                    : secretAccessKeyVariable != null ? SECRET_ACCESS_KEY_ENV : SECRET_FILE);
                }
            }
        }
    }

    /** The vending settings: durations within STS's bounds, and none of them without a role to assume. */
    void checkVending() {
        if (vendedDurationSeconds != null
                && (vendedDurationSeconds < MIN_VENDED_SECONDS || vendedDurationSeconds > MAX_VENDED_SECONDS)) {
            throw invalid("STS vends credentials for 900 to 43200 seconds", VENDED_DURATION_SECONDS);
        }
        if (refreshMarginSeconds != null
                && (refreshMarginSeconds < 0
                        || refreshMarginSeconds >= vendedDuration().toSeconds())) {
            throw invalid(
                    "The refresh margin must be at least 0 and shorter than vended-duration-seconds",
                    REFRESH_MARGIN_SECONDS);
        }
        if (isBlank(roleArn)) {
            refuseWithoutRole(EXTERNAL_ID, externalId);
            refuseWithoutRole(STS_ENDPOINT, stsEndpoint);
            refuseWithoutRole(VENDED_DURATION_SECONDS, vendedDurationSeconds);
            refuseWithoutRole(REFRESH_MARGIN_SECONDS, refreshMarginSeconds);
        }
    }

    private static void refuseWithoutRole(String key, Object value) {
        if (value != null) {
            throw invalid("This setting needs credentials.role-arn, the role to assume", key);
        }
    }

    /** An ADLS warehouse's static credential: the account's shared key or a SAS token (the other null), read now. */
    record AzureKeys(String accountKey, String sasToken) {}

    /** Reads an ADLS warehouse's account key or SAS token, from the environment or the secret file. */
    AzureKeys resolveAzure(Function<String, String> environment) {
        if (secretFile != null) {
            if (accountKeyVariable != null) {
                throw invalid(
                        "Give the account key either through an environment variable or through a secret file, not"
                                + " both",
                        SECRET_FILE);
            }
            Properties file = readSecretFile();
            String accountKey = stripped(file.getProperty(FILE_ACCOUNT_KEY));
            String sasToken = stripped(file.getProperty(FILE_SAS_TOKEN));
            if ((accountKey == null) == (sasToken == null)) {
                throw invalid(
                        "The secret file of an abfss warehouse needs one of account-key and sas-token", SECRET_FILE);
            }
            return new AzureKeys(accountKey, sasToken);
        }
        if (isBlank(accountKeyVariable)) {
            throw invalid(
                    "The static credentials source of an abfss warehouse needs account-key-env or secret-file",
                    ACCOUNT_KEY_ENV);
        }
        return new AzureKeys(variable(environment, ACCOUNT_KEY_ENV, accountKeyVariable), null);
    }

    private Properties readSecretFile() {
        Properties file = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of(secretFile), StandardCharsets.UTF_8)) {
            file.load(reader);
        } catch (IOException | RuntimeException e) {
            // The path is the operator's own setting, not a secret; the file's content never appears.
            throw invalid("The secret file cannot be read", SECRET_FILE);
        }
        return file;
    }

    /** The static keys: access key id, secret key and session token (null when none), read now. */
    record Keys(String accessKeyId, String secretAccessKey, String sessionToken) {}

    /** Reads the static keys from the environment or the secret file. Only for {@link Source#STATIC}. */
    Keys resolve(Function<String, String> environment) {
        if (secretFile != null) {
            if (accessKeyIdVariable != null || secretAccessKeyVariable != null || sessionTokenVariable != null) {
                throw invalid(
                        "Give static keys either through environment variables or through a secret file, not both",
                        SECRET_FILE);
            }
            Properties file = readSecretFile();
            String accessKeyId = file.getProperty(FILE_ACCESS_KEY_ID);
            String secretAccessKey = file.getProperty(FILE_SECRET_ACCESS_KEY);
            if (isBlank(accessKeyId) || isBlank(secretAccessKey)) {
                throw invalid("The secret file needs access-key-id and secret-access-key", SECRET_FILE);
            }
            return new Keys(
                    accessKeyId.strip(), secretAccessKey.strip(), stripped(file.getProperty(FILE_SESSION_TOKEN)));
        }
        if (isBlank(accessKeyIdVariable)) {
            throw invalid(
                    "The static credentials source needs access-key-id-env and secret-access-key-env, or secret-file",
                    ACCESS_KEY_ID_ENV);
        }
        if (isBlank(secretAccessKeyVariable)) {
            throw invalid(
                    "The static credentials source needs access-key-id-env and secret-access-key-env, or secret-file",
                    SECRET_ACCESS_KEY_ENV);
        }
        return new Keys(
                variable(environment, ACCESS_KEY_ID_ENV, accessKeyIdVariable),
                variable(environment, SECRET_ACCESS_KEY_ENV, secretAccessKeyVariable),
                sessionTokenVariable == null ? null : variable(environment, SESSION_TOKEN_ENV, sessionTokenVariable));
    }

    private static String variable(Function<String, String> environment, String key, String name) {
        String value = environment.apply(name);
        if (isBlank(value)) {
            throw invalid("The environment variable " + name + " is not set", key);
        }
        return value.strip();
    }

    private static void refuseSet(String key, String value) {
        if (value != null) {
            throw invalid("This setting does not apply to the credentials source", key);
        }
    }

    private static CatalogException invalid(String message, String key) {
        return new CatalogException(ErrorCode.INVALID_STORAGE_SETTINGS, message).with("key", "credentials." + key);
    }

    private static void putIfSet(Map<String, String> map, String key, String value) {
        if (value != null) {
            map.put(key, value);
        }
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }

    private static String stripped(String value) {
        return isBlank(value) ? null : value.strip();
    }
}
