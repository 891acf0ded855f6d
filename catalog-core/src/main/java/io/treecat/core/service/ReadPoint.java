package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/** Which version a read sees: the newest, a vid, a named snapshot, or the version current at a time. */
public sealed interface ReadPoint {
    ReadPoint LATEST = new Latest();

    static ReadPoint vid(long vid) {
        return new AtVid(vid);
    }

    static ReadPoint snapshot(String name) {
        return new AtSnapshot(name);
    }

    /** The newest vid committed at or before {@code time}. */
    static ReadPoint time(Instant time) {
        return new AtTime(time);
    }

    /**
     * Parses an RFC 3339 time with an offset ({@code 2026-11-24T09:00:00Z}, {@code
     * 2026-11-24T10:00:00+01:00}), as every read-by-time parameter takes it.
     *
     * @param field the parameter's name, for the error
     */
    static Instant parseTime(String text, String field) {
        requireNonNull(text, "text is null");
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new CatalogException(
                            ErrorCode.INVALID_REQUEST,
                            field + " is not an RFC 3339 time with an offset, such as 2026-11-24T09:00:00Z")
                    .with("field", field)
                    .with("value", text.length() > 64 ? text.substring(0, 64) + "…" : text);
        }
    }

    record Latest() implements ReadPoint {}

    record AtTime(Instant time) implements ReadPoint {
        public AtTime {
            requireNonNull(time, "time is null");
        }
    }

    record AtVid(long vid) implements ReadPoint {}

    record AtSnapshot(String name) implements ReadPoint {
        public AtSnapshot {
            requireNonNull(name, "name is null");
        }
    }
}
