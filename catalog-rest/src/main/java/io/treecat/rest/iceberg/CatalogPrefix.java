package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.apache.iceberg.exceptions.BadRequestException;

/**
 * The REST prefix of a route: the TreeCat catalog it names and the version it reads. A plain
 * {@code <catalog>} reads (and writes) the newest version; {@code <catalog>@<vid>},
 * {@code <catalog>@snapshot=<name>} and {@code <catalog>@time=<RFC 3339 time>} serve the whole
 * catalog as it was at that vid, named snapshot, or time (the newest vid committed at or before
 * it), read-only. The suffix is split at the first {@code @}, so a catalog name holding
 * {@code @} cannot be served through a REST prefix.
 */
record CatalogPrefix(String catalog, ReadPoint point) {
    static final char AT = '@';
    static final String SNAPSHOT = "snapshot=";
    static final String TIME = "time=";

    CatalogPrefix {
        requireNonNull(catalog, "catalog is null");
        requireNonNull(point, "point is null");
    }

    static CatalogPrefix parse(String prefix) {
        requireNonNull(prefix, "prefix is null");
        int at = prefix.indexOf(AT);
        if (at < 0) {
            return new CatalogPrefix(prefix, ReadPoint.LATEST);
        }
        String catalog = prefix.substring(0, at);
        String suffix = prefix.substring(at + 1);
        if (catalog.isEmpty()) {
            throw invalid(prefix);
        }
        if (suffix.startsWith(SNAPSHOT) && suffix.length() > SNAPSHOT.length()) {
            return new CatalogPrefix(catalog, ReadPoint.snapshot(suffix.substring(SNAPSHOT.length())));
        }
        if (suffix.startsWith(TIME)) {
            try {
                return new CatalogPrefix(
                        catalog,
                        ReadPoint.time(OffsetDateTime.parse(suffix.substring(TIME.length()))
                                .toInstant()));
            } catch (DateTimeParseException e) {
                throw new BadRequestException(
                        "Invalid REST prefix '%s': the time must be RFC 3339 with an offset, e.g. %s@time=2026-11-24T09:00:00Z",
                        prefix, catalog);
            }
        }
        if (!suffix.isEmpty() && suffix.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                return new CatalogPrefix(catalog, ReadPoint.vid(Long.parseLong(suffix)));
            } catch (NumberFormatException e) {
                throw invalid(prefix);
            }
        }
        throw invalid(prefix);
    }

    private static BadRequestException invalid(String prefix) {
        return new BadRequestException(
                "Invalid REST prefix '%s': expected <catalog>, <catalog>@<vid>, <catalog>@snapshot=<name> or <catalog>@time=<RFC 3339 time>",
                prefix);
    }

    /** Whether the prefix names a past version, where every write is refused. */
    boolean readOnly() {
        return !(point instanceof ReadPoint.Latest);
    }

    /**
     * The read point pinned to one vid, so that the several reads of one request (a namespace check,
     * then pages of a listing) all see the same version; the newest stays the newest. Fails with
     * VID_NOT_FOUND, SNAPSHOT_NOT_FOUND or TIME_BEFORE_HISTORY (404) when the version does not exist.
     */
    ReadPoint pinned(CatalogService service) {
        return readOnly() ? ReadPoint.vid(service.resolve(point)) : point;
    }
}
