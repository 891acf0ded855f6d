package io.treecat.lakehouse.iceberg;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

/**
 * The table metadata files read or written most recently, parsed. A metadata file never changes
 * once written (each commit writes a new one under a new name), so a parsed copy keyed by its
 * location stays right; this saves parsing a hot table's metadata on every load and commit, which
 * grows with the table's history. Least recently used entries go first.
 *
 * <p>It also remembers when this server last saw each file exist ({@link #exists}): a load checks
 * that the table's metadata file is still there, so that no cached answer hides a file deleted from
 * outside, and on an object store that check is a round trip (a HEAD, about a tenth of the server's
 * CPU under concurrent appends on S3, and tens of milliseconds on every load). A file seen within
 * the last {@link #SEEN_FRESH_NANOS second} is taken to be there still: a deleted metadata file is
 * noticed by the loads that come a second later.
 */
final class MetadataFileCache {
    private static final int CAPACITY = 64;
    /** How long a metadata file this server saw exist is taken to exist without asking the store again. */
    static final long SEEN_FRESH_NANOS = 1_000_000_000L;

    private static final int SEEN_CAPACITY = 4096;

    /** When each file was last seen to exist (System.nanoTime), most recent last. */
    private final Map<String, Long> seen = new LinkedHashMap<>(SEEN_CAPACITY, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > SEEN_CAPACITY;
        }
    };

    private final Map<String, TableMetadata> entries = new LinkedHashMap<>(CAPACITY, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TableMetadata> eldest) {
            return size() > CAPACITY;
        }
    };

    /**
     * The metadata in the file at {@code location}, parsed once. The file must still exist: a table
     * whose metadata file went missing fails to load as it would without the cache (one stat call).
     * Locations are URIs with a scheme, so one cache serves the {@code FileIO}s of every warehouse.
     */
    TableMetadata read(FileIO io, String location) {
        TableMetadata cached;
        synchronized (entries) {
            cached = entries.get(location);
        }
        if (cached != null && exists(io, location)) {
            return cached;
        }
        TableMetadata metadata = TableMetadataParser.read(io, location);
        synchronized (entries) {
            entries.put(location, metadata);
        }
        saw(location);
        return metadata;
    }

    /**
     * Whether the metadata file at {@code location} exists: true without asking the store if this
     * server saw it within the last second (read, written or checked), else the store's answer.
     */
    boolean exists(FileIO io, String location) {
        Long seenAt;
        synchronized (seen) {
            seenAt = seen.get(location);
        }
        if (seenAt != null && System.nanoTime() - seenAt < SEEN_FRESH_NANOS) {
            return true;
        }
        boolean exists = io.newInputFile(location).exists();
        if (exists) {
            saw(location);
        } else {
            synchronized (seen) {
                seen.remove(location);
            }
        }
        return exists;
    }

    private void saw(String location) {
        long now = System.nanoTime();
        synchronized (seen) {
            seen.put(location, now);
        }
    }

    /**
     * As {@link #read}, without the stat call when the file is cached: for a commit chain's base,
     * read on every chain while the table's queue waits (on an object store the stat is a round
     * trip). The file was written or read by this server and metadata files never change; one deleted
     * from outside meanwhile is found by the next load, and the chain's new file does not depend on
     * the old one existing.
     */
    TableMetadata readTrusted(FileIO io, String location) {
        TableMetadata cached;
        synchronized (entries) {
            cached = entries.get(location);
        }
        return cached != null ? cached : read(io, location);
    }

    /** Remembers metadata just written to its {@code metadataFileLocation()}. */
    void written(TableMetadata metadata) {
        synchronized (entries) {
            entries.put(metadata.metadataFileLocation(), metadata);
        }
        saw(metadata.metadataFileLocation());
    }
}
