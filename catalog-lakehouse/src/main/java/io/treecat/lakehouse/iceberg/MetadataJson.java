package io.treecat.lakehouse.iceberg;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.util.JsonUtil;

/**
 * A table's metadata as the JSON its file holds, serialized once per commit: written to the file and kept for the
 * answer to the commit and the loads after it ({@link MetadataFileCache#json}), which carry the very same JSON.
 * Serializing it again for the answer cost as much as writing the file, and both grow with the table's history.
 *
 * <p>Compact, where {@link TableMetadataParser#overwrite} pretty-prints: a reader parses either, and the file is
 * smaller. Gzip-compressed when the file's name says so ({@code .gz.metadata.json}), as Iceberg's own writer does.
 */
final class MetadataJson {
    private MetadataJson() {}

    /** The JSON of {@code metadata}, in UTF-8, as {@link TableMetadataParser#toJson(TableMetadata)} gives it. */
    static byte[] of(TableMetadata metadata) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try (JsonGenerator generator = JsonUtil.factory().createGenerator(out, JsonEncoding.UTF8)) {
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
