package io.treecat.lakehouse.storage;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.util.List;
import org.apache.iceberg.io.FileIO;

/**
 * Where one catalog's files live: its warehouse location (a URI with a scheme) and the {@link FileIO}
 * that reads and writes there. Default locations of namespaces, tables and views are built under it,
 * one escaped path segment per name ({@link Locations#segment}), and every location the lake writes to
 * passes {@link #check}: never a {@code .} or {@code ..} segment, and inside the warehouse unless
 * {@link ExternalLocations#ALLOWED} lets a client's own location lie elsewhere.
 *
 * @param catalog the catalog's name, the first id of its paths
 * @param location the catalog's warehouse location, without a trailing slash
 * @param external whether a location a client chooses may lie outside {@code location}
 */
public record Warehouse(String catalog, String location, FileIO io, ExternalLocations external) {
    /** What a refused location's context names: a namespace's, table's or view's own location. */
    public static final String LOCATION = "location";
    /** What a refused location's context names: the metadata file a commit would write. */
    public static final String METADATA_FILE = "metadata file";

    public Warehouse {
        requireNonNull(catalog, "catalog is null");
        location = Locations.stripSlash(requireNonNull(location, "location is null"));
        requireNonNull(io, "io is null");
        requireNonNull(external, "external is null");
    }

    /** A warehouse where clients may choose locations outside it. */
    public Warehouse(String catalog, String location, FileIO io) {
        this(catalog, location, io, ExternalLocations.ALLOWED);
    }

    /**
     * The default location of the namespace {@code levels} (empty: the catalog's own): one escaped path
     * segment per level below the warehouse ({@link Locations#segment}).
     */
    public String namespaceLocation(List<String> levels) {
        StringBuilder result = new StringBuilder(location);
        for (String level : levels) {
            result.append('/').append(Locations.segment(level));
        }
        return result.toString();
    }

    /**
     * The default location of an object named {@code name} whose parent (its namespace) is at
     * {@code parentLocation}: one escaped path segment below it, then {@linkplain #check checked}.
     */
    public String childLocation(String parentLocation, String name) {
        return check(Locations.stripSlash(parentLocation) + "/" + Locations.segment(name), LOCATION);
    }

    /**
     * Checks a location the lake is about to write to, make a directory at or store for a new object, and
     * answers it without trailing slashes. {@code what} names it in a refusal ({@link #LOCATION},
     * {@link #METADATA_FILE}, or the property that set it); a refusal never repeats the location, which
     * may be the server's own path.
     *
     * @throws CatalogException {@code INVALID_LOCATION} for a location {@link Locations#checkPlaceable}
     *     refuses, or one outside the warehouse when {@link #external()} is {@link ExternalLocations#REFUSED}
     */
    public String check(String location, String what) {
        Locations.checkPlaceable(location, what);
        StorageSchemes.checkKnown(location, what);
        if (external == ExternalLocations.REFUSED && !contains(location)) {
            throw new CatalogException(
                            ErrorCode.INVALID_LOCATION,
                            "Invalid location: it is outside the catalog's warehouse, and this server keeps every"
                                    + " location inside it (warehouse.allow-external-locations)")
                    .with("field", what)
                    .with("catalog", catalog);
        }
        return Locations.stripSlash(location);
    }

    /**
     * {@link #check}, and that the server can write there: the location is on this warehouse's store (an
     * {@code s3a://} file in an {@code s3://} warehouse is; a {@code file:} one is not), which its {@link #io()} serves.
     *
     * @throws CatalogException as {@link #check}, or {@code UNSUPPORTED_LOCATION_SCHEME} naming the scheme
     */
    public String checkWritable(String location, String what) {
        String checked = check(location, what);
        String scheme = Locations.scheme(checked);
        if (!StorageSchemes.sameStore(scheme, Locations.scheme(this.location))) {
            throw StorageSchemes.unsupported(scheme, what).with("catalog", catalog);
        }
        return checked;
    }

    /** Whether {@code location} is this warehouse's location or below it ({@link Locations#isInside}). */
    public boolean contains(String location) {
        return !Locations.hasDotSegment(location) && Locations.isInside(location, this.location);
    }
}
