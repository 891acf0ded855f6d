package io.treecat.lakehouse.iceberg;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.util.JsonUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's metadata as the JSON its file holds, serialized once per commit: written to the file and kept for the
 * answer to the commit and the loads after it ({@link MetadataFileCache#json}), which carry the very same JSON.
 * Serializing it again for the answer cost as much as writing the file, and both grow with the table's history.
 *
 * <p>Compact, where {@link TableMetadataParser#overwrite} pretty-prints: a reader parses either, and the file is
 * smaller. Gzip-compressed when the file's name says so ({@code .gz.metadata.json}), as Iceberg's own writer does.
 *
 * <p>Each snapshot is encoded once: a commit's metadata shares its snapshot objects with the metadata before it, and
 * the snapshots are most of a table's metadata (1,000 snapshots with Spark-like summaries: about 0.5 MB). Their JSON is kept by
 * snapshot object, weakly (it goes when no metadata holds the snapshot any more), and Iceberg's own serializer writes
 * everything else around it ({@link SnapshotSplicingGenerator}). On a busy table of about 1,000 snapshots, encoding
 * them all again was a tenth of the commit threads' samples; the file's JSON now takes a quarter of the time
 * (docs/benchmarks-history.md, "REST hot path").
 */
final class MetadataJson {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataJson.class);

    /** At most this many characters of snapshot JSON are kept, least recently used out first. */
    private static final long MAX_SNAPSHOT_JSON_CHARS = 64L << 20;

    /** Each snapshot's compact JSON, by snapshot object (identity: the keys are weak). */
    private static final Cache<Snapshot, SerializableString> SNAPSHOT_JSON = CacheBuilder.newBuilder()
            .weakKeys()
            .maximumWeight(MAX_SNAPSHOT_JSON_CHARS)
            .<Snapshot, SerializableString>weigher((snapshot, json) -> json.charLength())
            .build();

    private static final AtomicBoolean mismatchLogged = new AtomicBoolean();

    private MetadataJson() {}

    /** The JSON of {@code metadata}, in UTF-8, as {@link TableMetadataParser#toJson(TableMetadata)} gives it. */
    static byte[] of(TableMetadata metadata) {
        List<Snapshot> snapshots = metadata.snapshots();
        if (!snapshots.isEmpty()) {
            List<SerializableString> json = new ArrayList<>(snapshots.size());
            int length = 0;
            for (Snapshot snapshot : snapshots) {
                SerializableString encoded = snapshotJson(snapshot);
                json.add(encoded);
                length += encoded.charLength();
            }
            try {
                return serialize(metadata, snapshots, json, length);
            } catch (SnapshotSplicingGenerator.Mismatch e) {
                // Iceberg's serializer wrote a snapshot in a way the splicing does not know (another Iceberg
                // version): its own way, whole, as before. Said once, not on every commit.
                if (!mismatchLogged.getAndSet(true)) {
                    LOG.warn("Table metadata is serialized whole, each snapshot encoded again: {}", e.getMessage());
                }
            }
        }
        return serialize(metadata, null, null, 0);
    }

    private static SerializableString snapshotJson(Snapshot snapshot) {
        SerializableString json = SNAPSHOT_JSON.getIfPresent(snapshot);
        if (json == null) {
            json = new SerializedString(SnapshotParser.toJson(snapshot, false));
            SNAPSHOT_JSON.put(snapshot, json);
        }
        return json;
    }

    /**
     * Iceberg's serialization of {@code metadata}; with {@code snapshotJson} (in the order of {@code snapshots}), each
     * snapshot spliced in from it. {@code snapshotChars} sizes the buffer: the snapshots are most of the document.
     */
    private static byte[] serialize(
            TableMetadata metadata,
            List<Snapshot> snapshots,
            List<SerializableString> snapshotJson,
            int snapshotChars) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(snapshotChars + snapshotChars / 8 + 16 * 1024);
        try (JsonGenerator plain = JsonUtil.factory().createGenerator(out, JsonEncoding.UTF8);
                JsonGenerator generator =
                        snapshotJson == null ? plain : new SnapshotSplicingGenerator(plain, snapshots, snapshotJson)) {
            TableMetadataParser.toJson(metadata, generator);
        } catch (IOException e) {
            // Only the generator's own failure: the stream is in memory.
            throw new UncheckedIOException("Cannot serialize table metadata", e);
        }
        return out.toByteArray();
    }

    /** Writes {@code json} to {@code file}, replacing it if it exists (metadata file names are new on every commit). */
    static void write(OutputFile file, byte[] json) {
        boolean gzip = TableMetadataParser.Codec.fromFileName(file.location()) == TableMetadataParser.Codec.GZIP;
        try (OutputStream stream = file.createOrOverwrite();
                OutputStream out = gzip ? new GZIPOutputStream(stream) : stream) {
            out.write(json);
        } catch (IOException e) {
            throw new RuntimeIOException(e, "Failed to write json to file: %s", file.location());
        }
    }
}
