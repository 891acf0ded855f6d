package io.treecat.lakehouse.model;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.bson.BsonDocument;

/**
 * A dropped table whose files are still to be deleted, {@code /<catalog>/.purges/<id>}. The drop writes it in its own
 * commit, so a purge asked for is never lost (a restart finds it) and a drop that failed asked for none; the purger
 * removes it once the files are gone, or updates it after a failed attempt.
 *
 * @param path the dropped table's path in the tree ({@link io.treecat.core.model.ObjectPath} text): a named snapshot
 *     that still holds a table there with files in {@code location} defers the purge
 * @param table the dropped table, {@code namespace.table}: for messages and metrics only
 * @param location the table's location: nothing outside it is deleted
 * @param metadataLocation the table's last metadata file, from which its files are found
 * @param requested when the drop asked for the purge, ms since the epoch
 * @param attempts how many attempts failed so far
 * @param nextAttempt not before this time (ms since the epoch) is the next attempt made
 * @param lastError why the last attempt failed; null before the first failure
 * @param others fields no interface declares, kept as they are
 */
public record PurgeEntry(
        String path,
        String table,
        String location,
        String metadataLocation,
        long requested,
        int attempts,
        long nextAttempt,
        String lastError,
        BsonDocument others)
        implements LakeObject {
    private static final Set<String> DECLARED = Set.of(
            LakeKeys.OBJ_TYPE,
            LakeKeys.PURGE_PATH,
            LakeKeys.PURGE_TABLE,
            LakeKeys.PURGE_LOCATION,
            LakeKeys.PURGE_METADATA_LOCATION,
            LakeKeys.PURGE_REQUESTED,
            LakeKeys.PURGE_ATTEMPTS,
            LakeKeys.PURGE_NEXT_ATTEMPT,
            LakeKeys.PURGE_LAST_ERROR);

    public PurgeEntry {
        requireNonNull(path, "path is null");
        requireNonNull(table, "table is null");
        requireNonNull(location, "location is null");
        requireNonNull(metadataLocation, "metadataLocation is null");
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must not be negative: " + attempts);
        }
        others = requireNonNull(others, "others is null").clone();
    }

    /** A purge asked for at {@code now}, to be attempted at once. */
    public static PurgeEntry requested(String path, String table, String location, String metadataLocation, long now) {
        return new PurgeEntry(path, table, location, metadataLocation, now, 0, now, null, new BsonDocument());
    }

    public static PurgeEntry decode(BsonDocument stored) {
        BsonDocument value = Fields.plain(stored);
        ObjectType type = ObjectType.TABLE_PURGE;
        Fields.requireType(value, type);
        Long requested = Fields.int64(value, LakeKeys.PURGE_REQUESTED, type);
        Integer attempts = Fields.int32(value, LakeKeys.PURGE_ATTEMPTS, type);
        Long nextAttempt = Fields.int64(value, LakeKeys.PURGE_NEXT_ATTEMPT, type);
        return new PurgeEntry(
                required(Fields.string(value, LakeKeys.PURGE_PATH, type), LakeKeys.PURGE_PATH),
                required(Fields.string(value, LakeKeys.PURGE_TABLE, type), LakeKeys.PURGE_TABLE),
                required(Fields.string(value, LakeKeys.PURGE_LOCATION, type), LakeKeys.PURGE_LOCATION),
                required(
                        Fields.string(value, LakeKeys.PURGE_METADATA_LOCATION, type), LakeKeys.PURGE_METADATA_LOCATION),
                requested == null ? 0 : requested,
                attempts == null ? 0 : Math.max(0, attempts),
                nextAttempt == null ? 0 : nextAttempt,
                Fields.string(value, LakeKeys.PURGE_LAST_ERROR, type),
                Fields.others(value, DECLARED));
    }

    private static <T> T required(T field, String key) {
        if (field == null) {
            throw Fields.missing(ObjectType.TABLE_PURGE, key, "for a table purge");
        }
        return field;
    }

    /** After a failed attempt: one more attempt counted, the next not before {@code nextAttempt}. */
    public PurgeEntry failed(String error, long nextAttempt) {
        return new PurgeEntry(
                path, table, location, metadataLocation, requested, attempts + 1, nextAttempt, error, others);
    }

    @Override
    public BsonDocument encode() {
        return Values.of(ObjectType.TABLE_PURGE)
                .string(LakeKeys.PURGE_PATH, path)
                .string(LakeKeys.PURGE_TABLE, table)
                .string(LakeKeys.PURGE_LOCATION, location)
                .string(LakeKeys.PURGE_METADATA_LOCATION, metadataLocation)
                .int64(LakeKeys.PURGE_REQUESTED, requested)
                .int32(LakeKeys.PURGE_ATTEMPTS, attempts)
                .int64(LakeKeys.PURGE_NEXT_ATTEMPT, nextAttempt)
                .string(LakeKeys.PURGE_LAST_ERROR, lastError)
                .with(others);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PurgeEntry entry && encode().equals(entry.encode());
    }

    @Override
    public int hashCode() {
        return encode().hashCode();
    }

    @Override
    public String toString() {
        return "PurgeEntry" + encode().toJson();
    }
}
