package io.treecat.lakehouse.storage;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.Optional;
import java.util.Set;

/**
 * The location schemes the lake knows, grouped by the store that serves them, and the Iceberg {@code FileIO} of each
 * store. A catalog's warehouse is on one store ({@link Family}); the server writes there through that store's FileIO
 * only. Hive locations are metadata to the server (it never reads or writes their files), so any known scheme passes
 * for them, including stores this server has no FileIO for ({@code hdfs}).
 */
public final class StorageSchemes {
    /** A store and the schemes that name it. */
    public enum Family {
        /** A local (or mounted) file system: {@code file:} and bare paths, through {@link LocalFileIO}. */
        LOCAL(Set.of("file"), LocalFileIO.class.getName()),
        /** S3 and S3-compatible stores, through iceberg-aws's {@code S3FileIO} (AWS SDK v2). */
        S3(Set.of("s3", "s3a", "s3n"), "org.apache.iceberg.aws.s3.S3FileIO"),
        /** Google Cloud Storage, through iceberg-gcp's {@code GCSFileIO}. */
        GCS(Set.of("gs"), "org.apache.iceberg.gcp.gcs.GCSFileIO"),
        /** Azure Data Lake Storage Gen2, through iceberg-azure's {@code ADLSFileIO}. */
        ADLS(Set.of("abfs", "abfss"), "org.apache.iceberg.azure.adlsv2.ADLSFileIO");

        private final Set<String> schemes;
        private final String fileIoClass;

        Family(Set<String> schemes, String fileIoClass) {
            this.schemes = schemes;
            this.fileIoClass = fileIoClass;
        }

        public Set<String> schemes() {
            return schemes;
        }

        /** The class name of the store's Iceberg FileIO. */
        public String fileIoClass() {
            return fileIoClass;
        }

        /** Whether this server has the store's FileIO on its class path. */
        public boolean available() {
            try {
                Class.forName(fileIoClass, false, StorageSchemes.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }

    /**
     * Schemes of stores this server has no FileIO for, which Hive clients still name in locations the server only
     * stores (HDFS and its federation, Azure's older blob driver, Ozone, Alibaba OSS).
     */
    private static final Set<String> METADATA_ONLY = Set.of("hdfs", "viewfs", "wasb", "wasbs", "ofs", "o3fs", "oss");

    private StorageSchemes() {}

    /** The store a scheme names; empty for one no store here serves. */
    public static Optional<Family> family(String scheme) {
        for (Family family : Family.values()) {
            if (family.schemes.contains(scheme)) {
                return Optional.of(family);
            }
        }
        return Optional.empty();
    }

    /** Whether two schemes name the same store ({@code s3} and {@code s3a}; {@code abfs} and {@code abfss}). */
    static boolean sameStore(String scheme, String other) {
        return scheme.equals(other)
                || (family(scheme).isPresent() && family(scheme).equals(family(other)));
    }

    /**
     * Checks that {@code location}'s scheme is one the lake knows.
     *
     * @throws CatalogException {@code UNSUPPORTED_LOCATION_SCHEME}, naming the scheme, context {@code scheme} and
     *     {@code field} = {@code what}
     */
    public static void checkKnown(String location, String what) {
        String scheme = Locations.scheme(location);
        if (family(scheme).isEmpty() && !METADATA_ONLY.contains(scheme)) {
            throw unsupported(scheme, what);
        }
    }

    /**
     * The store of a warehouse location, whose FileIO this server must have.
     *
     * @throws CatalogException {@code UNSUPPORTED_LOCATION_SCHEME} naming the scheme
     */
    public static Family warehouseFamily(String location, String what) {
        String scheme = Locations.scheme(location);
        Family family = family(scheme).orElseThrow(() -> unsupported(scheme, what));
        if (!family.available()) {
            throw new CatalogException(
                            ErrorCode.UNSUPPORTED_LOCATION_SCHEME,
                            "Unsupported warehouse scheme: " + scheme + " (this server is built without "
                                    + family.fileIoClass() + ")")
                    .with("scheme", scheme)
                    .with("field", what);
        }
        return family;
    }

    static CatalogException unsupported(String scheme, String what) {
        return new CatalogException(ErrorCode.UNSUPPORTED_LOCATION_SCHEME, "Unsupported location scheme: " + scheme)
                .with("scheme", scheme)
                .with("field", what);
    }
}
