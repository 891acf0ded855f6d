package io.treecat.lakehouse.storage;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a client that reaches a table's files itself is told, under Iceberg's property names, when it asks for access
 * delegation ({@code X-Iceberg-Access-Delegation}). Only tables whose catalog is on S3 get any: a {@code file:}
 * warehouse is reached with the client's own access, as before.
 */
public final class AccessDelegation {
    /** The header's value for remote signing (Iceberg's REST spec). */
    public static final String REMOTE_SIGNING = "remote-signing";
    /** The header's value for vended credentials (Iceberg's REST spec). */
    public static final String VENDED_CREDENTIALS = "vended-credentials";

    static final String REMOTE_SIGNING_ENABLED = "s3.remote-signing-enabled";
    static final String SIGNER_URI = "s3.signer.uri";
    static final String SIGNER_ENDPOINT = "s3.signer.endpoint";
    /** Where a client refreshes vended credentials, relative to the catalog's URI (Iceberg's client resolves it). */
    static final String REFRESH_ENDPOINT = "client.refresh-credentials-endpoint";

    static final String REFRESH_ENABLED = "client.refresh-credentials-enabled";

    /** The store settings a client needs to reach the store: never a credential (the settings hold none). */
    private static final List<String> CLIENT_SETTINGS =
            List.of(StorageSettings.S3_ENDPOINT, "s3.path-style-access", StorageSettings.CLIENT_REGION);

    private AccessDelegation() {}

    /**
     * Checks a header value: a comma-separated list of the mechanisms the spec names.
     *
     * @throws IllegalArgumentException naming the first value that is not one of them
     */
    public static void check(String header) {
        if (header == null) {
            return;
        }
        for (String value : header.split(",", -1)) {
            String mechanism = value.trim().toLowerCase(Locale.ROOT);
            if (!mechanism.equals(REMOTE_SIGNING) && !mechanism.equals(VENDED_CREDENTIALS)) {
                throw new IllegalArgumentException("Unsupported access delegation, expected vended-credentials or"
                        + " remote-signing (comma-separated): "
                        + (value.length() > 64 ? value.substring(0, 64) + "…" : value));
            }
        }
    }

    /** Whether a header value (a comma-separated list of mechanisms) asks for {@code mechanism}. */
    public static boolean asks(String header, String mechanism) {
        if (header == null) {
            return false;
        }
        for (String value : header.split(",")) {
            if (value.trim().toLowerCase(Locale.ROOT).equals(mechanism)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The remote-signing config of a table in {@code warehouse}: signing on, where to sign (the table's own signing
     * route), and the store's endpoint, region and path style. Empty when the warehouse is not on S3.
     *
     * @param signerUri the server's base URI, as the client reached it
     * @param signerEndpoint the table's signing route, relative to {@code signerUri}
     */
    public static Map<String, String> remoteSigningConfig(
            Warehouse warehouse, String signerUri, String signerEndpoint) {
        if (!(warehouse.io() instanceof StoreFileIO store) || !onS3(warehouse)) {
            return Map.of();
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put(REMOTE_SIGNING_ENABLED, "true");
        config.put(SIGNER_URI, signerUri);
        config.put(SIGNER_ENDPOINT, signerEndpoint);
        for (String key : CLIENT_SETTINGS) {
            String value = store.settings().get(key);
            if (value != null) {
                config.put(key, value);
            }
        }
        return config;
    }

    /**
     * The config of a table in {@code warehouse} with vended credentials: the store's endpoint, region and path style,
     * and where the client refreshes them ({@code refreshEndpoint}, the table's credentials route relative to the
     * catalog's URI). The credentials themselves are the response's {@code storage-credentials}.
     */
    public static Map<String, String> vendedConfig(Warehouse warehouse, String refreshEndpoint) {
        if (!(warehouse.io() instanceof StoreFileIO store) || !onS3(warehouse)) {
            return Map.of();
        }
        Map<String, String> config = new LinkedHashMap<>();
        for (String key : CLIENT_SETTINGS) {
            String value = store.settings().get(key);
            if (value != null) {
                config.put(key, value);
            }
        }
        config.put(REFRESH_ENDPOINT, refreshEndpoint);
        config.put(REFRESH_ENABLED, "true");
        return config;
    }

    /** The catalog's {@code s3.endpoint}, or null when it sets none (AWS, by region). */
    public static String endpoint(Warehouse warehouse) {
        return warehouse.io() instanceof StoreFileIO store ? store.settings().get(StorageSettings.S3_ENDPOINT) : null;
    }

    /** Whether {@code warehouse} is on S3 (its FileIO is the server's S3FileIO). */
    public static boolean onS3(Warehouse warehouse) {
        return warehouse.io() instanceof StoreFileIO
                && StorageSchemes.sameStore(Locations.scheme(warehouse.location()), "s3");
    }
}
