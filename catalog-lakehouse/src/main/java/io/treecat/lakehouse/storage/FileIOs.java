package io.treecat.lakehouse.storage;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;

/**
 * Builds a catalog's {@code FileIO} from its {@link StorageSettings}: {@link LocalFileIO} for {@code file:}, else the
 * store's own Iceberg FileIO ({@code S3FileIO}, {@code GCSFileIO}, {@code ADLSFileIO}), loaded by class name through
 * Iceberg's {@code CatalogUtil.loadFileIO} with the settings' properties and the credentials read now. The SDK
 * clients are made on first use, so building one contacts no store: an unreachable store fails the first request
 * that needs it ({@code OBJECT_STORE_UNAVAILABLE}), not the server's start.
 */
public final class FileIOs {
    private FileIOs() {}

    /**
     * The FileIO of a warehouse; the caller owns it and closes it.
     *
     * @throws CatalogException {@code UNSUPPORTED_LOCATION_SCHEME} or {@code INVALID_STORAGE_SETTINGS}
     *     ({@link StorageSettings#check})
     */
    public static FileIO open(StorageSettings settings, Function<String, String> environment) {
        settings.check(environment);
        StorageSchemes.Family family = settings.family();
        if (family == StorageSchemes.Family.LOCAL) {
            return new LocalFileIO();
        }
        Map<String, String> properties = new java.util.LinkedHashMap<>(settings.fileIoProperties(environment));
        if (family == StorageSchemes.Family.S3) {
            // The SDK's Apache client is the one the server ships (StorageSettings checks a type that is named).
            properties.putIfAbsent(StorageSettings.S3_HTTP_CLIENT_TYPE, "apache");
        }
        java.util.List<String> secrets = settings.secrets(environment);
        FileIO io;
        try {
            io = CatalogUtil.loadFileIO(family.fileIoClass(), properties, null);
        } catch (RuntimeException e) {
            String message = new StoreFileIO(new LocalFileIO(), secrets).scrub(e.getMessage());
            throw new CatalogException(
                            ErrorCode.INVALID_STORAGE_SETTINGS, "The warehouse's FileIO cannot be built: " + message)
                    .with("key", "location");
        }
        return new StoreFileIO(io, secrets, settings.properties(), settings.credentials());
    }
}
