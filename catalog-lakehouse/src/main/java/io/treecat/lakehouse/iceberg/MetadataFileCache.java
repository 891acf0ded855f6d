package io.treecat.lakehouse.iceberg;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

/**
 * The table metadata files read or written most recently, parsed. A metadata file never changes
 * once written (each commit writes a new one under a new name), so a parsed copy keyed by its
 * location stays right; this saves parsing a hot table's metadata on every load and commit, which
 * grows with the table's history. Least recently used entries go first.
 */
final class MetadataFileCache {
    private static final int CAPACITY = 64;

    /**
     * The most bytes of written JSON kept: a commit's answer takes it right away, and the loads that follow it are
     * answered from the REST layer's own bodies; a table with thousands of snapshots writes a few MB.
     */
    private static final long MAX_JSON_BYTES = 32L << 20;

    /** The JSON of the files this server wrote most recently, oldest first out. */
    private final Map<String, byte[]> written = new LinkedHashMap<>(16, 0.75f, true);

    private long writtenBytes;

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
        if (cached != null && io.newInputFile(location).exists()) {
            return cached;
        }
        TableMetadata metadata = TableMetadataParser.read(io, location);
        synchronized (entries) {
            entries.put(location, metadata);
        }
        return metadata;
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

    /**
     * Remembers metadata just written to its {@code metadataFileLocation()}, and the JSON the file holds ({@link
     * MetadataJson}) for the answers that carry it.
     */
    void written(TableMetadata metadata, byte[] json) {
        synchronized (entries) {
            entries.put(metadata.metadataFileLocation(), metadata);
        }
        synchronized (written) {
            byte[] previous = written.put(metadata.metadataFileLocation(), json);
            writtenBytes += json.length - (previous == null ? 0 : previous.length);
            var eldest = written.entrySet().iterator();
            while (writtenBytes > MAX_JSON_BYTES && eldest.hasNext()) {
                writtenBytes -= eldest.next().getValue().length;
                eldest.remove();
            }
        }
    }

    /**
     * The JSON in the metadata file at {@code location} if this server wrote it recently, exactly as written; empty
     * otherwise (a file written elsewhere is parsed, and so checked, before it is answered).
     */
    Optional<byte[]> json(String location) {
        synchronized (written) {
            return Optional.ofNullable(written.get(location));
        }
    }
}
