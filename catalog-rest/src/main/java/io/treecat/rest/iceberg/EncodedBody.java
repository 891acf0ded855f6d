package io.treecat.rest.iceberg;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * A JSON response body encoded once: its UTF-8 bytes, and their gzip, made the first time a client
 * that accepts gzip is answered it. Load-table bodies are kept ({@link LoadTableBodies}) and answered
 * many times over: to every member of a commit chain, and to every writer that loads the table
 * before its commit and again after it. Left to the server's gzip handler, every one of those
 * answers compressed the table's whole metadata again: on a hot table that was about a tenth of the
 * request threads' CPU (docs/benchmarks-history.md). Answered here already compressed, with {@code
 * Content-Encoding: gzip}, the handler leaves it as it is.
 */
final class EncodedBody {
    private final byte[] json;
    private volatile byte[] gzip;

    private EncodedBody(byte[] json) {
        this.json = json;
    }

    static EncodedBody of(String json) {
        return new EncodedBody(json.getBytes(StandardCharsets.UTF_8));
    }

    /** A body already encoded as UTF-8 JSON (the Iceberg routes' answers, {@code IcebergBodies.ok}). */
    static EncodedBody of(byte[] json) {
        return new EncodedBody(json);
    }

    /**
     * A load-table answer ({@code LoadTableResponse} with no config and no credentials) around a metadata file's JSON
     * as written ({@code IcebergTables#writtenMetadataJson}), the same JSON Iceberg's {@code LoadTableResponseParser}
     * gives for that metadata, without serializing the metadata again.
     */
    static EncodedBody loadTable(String metadataLocation, byte[] metadataJson) {
        return loadTable(metadataLocation, metadataJson, Map.of());
    }

    /** {@link #loadTable(String, byte[])} with the table's {@code config} (string keys and values). */
    static EncodedBody loadTable(String metadataLocation, byte[] metadataJson, Map<String, String> config) {
        JsonStringEncoder encoder = JsonStringEncoder.getInstance();
        byte[] location = encoder.quoteAsUTF8(metadataLocation);
        ByteArrayOutputStream out = new ByteArrayOutputStream(metadataJson.length + location.length + 40);
        out.writeBytes(LOAD_TABLE_START);
        out.writeBytes(location);
        out.writeBytes(LOAD_TABLE_METADATA);
        out.writeBytes(metadataJson);
        if (!config.isEmpty()) {
            out.writeBytes(",\"config\":{".getBytes(StandardCharsets.UTF_8));
            boolean first = true;
            for (Map.Entry<String, String> entry : new TreeMap<>(config).entrySet()) {
                if (!first) {
                    out.write(',');
                }
                first = false;
                out.write('"');
                out.writeBytes(encoder.quoteAsUTF8(entry.getKey()));
                out.writeBytes("\":\"".getBytes(StandardCharsets.UTF_8));
                out.writeBytes(encoder.quoteAsUTF8(entry.getValue()));
                out.write('"');
            }
            out.write('}');
        }
        out.write('}');
        return new EncodedBody(out.toByteArray());
    }

    private static final byte[] LOAD_TABLE_START = "{\"metadata-location\":\"".getBytes(StandardCharsets.UTF_8);
    private static final byte[] LOAD_TABLE_METADATA = "\",\"metadata\":".getBytes(StandardCharsets.UTF_8);

    /** The size of the JSON in UTF-8 (for {@link LoadTableBodies}' bound). */
    int jsonBytes() {
        return json.length;
    }

    /** The JSON text. */
    String json() {
        return new String(json, StandardCharsets.UTF_8);
    }

    /**
     * A 200 answer with this body: gzip-compressed if {@code gzip} allows it for this size and the
     * client's {@code Accept-Encoding} takes it, else as it is.
     */
    Response.ResponseBuilder ok(ResponseGzip gzip, String acceptEncoding) {
        boolean compressed = gzip.enabled() && json.length >= gzip.minimumBytes() && acceptsGzip(acceptEncoding);
        byte[] bytes = compressed ? gzipped() : json;
        Response.ResponseBuilder response = Response.ok(new Entity(this, bytes), MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.CONTENT_LENGTH, bytes.length);
        if (gzip.enabled()) {
            // Caches between server and client must keep the two encodings apart (the server's handler says so only
            // for the answers it compresses itself).
            response.header(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
        }
        return compressed ? response.header(HttpHeaders.CONTENT_ENCODING, "gzip") : response;
    }

    private byte[] gzipped() {
        byte[] compressed = gzip;
        if (compressed == null) {
            // Two callers at once may both compress; both results are the same bytes, and the last one stays.
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, json.length / 8));
            try (GZIPOutputStream zip = new GZIPOutputStream(out, 8192) {
                {
                    // The fastest level: a body is compressed on a commit's answer, and the default level took four
                    // times as long for a tenth fewer bytes (docs/benchmarks-history.md, "REST hot path").
                    def.setLevel(Deflater.BEST_SPEED);
                }
            }) {
                zip.write(json);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            compressed = out.toByteArray();
            gzip = compressed;
        }
        return compressed;
    }

    /** The entity of an uncompressed answer with this body. */
    Entity plain() {
        return new Entity(this, json);
    }

    /**
     * Whether an {@code Accept-Encoding} header takes gzip: it names {@code gzip} (or {@code x-gzip})
     * without {@code q=0}. The server's own gzip handler asks no more than that; {@code *} is not taken,
     * as it does not take it either.
     */
    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        for (String coding : acceptEncoding.split(",")) {
            String[] parts = coding.split(";");
            String name = parts[0].trim().toLowerCase(Locale.ROOT);
            if ((name.equals("gzip") || name.equals("x-gzip")) && !refused(parts)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a coding's parameters give it {@code q=0} (or an unreadable weight, taken as a refusal). */
    private static boolean refused(String[] parts) {
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].trim().toLowerCase(Locale.ROOT);
            if (parameter.startsWith("q=")) {
                try {
                    return Double.parseDouble(parameter.substring(2).trim()) <= 0;
                } catch (NumberFormatException e) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The entity of an answer: the bytes as they go out, and the body they encode, for the filters that
     * keep an answer's JSON (an idempotent commit's replay).
     */
    static final class Entity implements StreamingOutput {
        private final EncodedBody body;
        private final byte[] bytes;

        private Entity(EncodedBody body, byte[] bytes) {
            this.body = requireNonNull(body, "body is null");
            this.bytes = bytes;
        }

        /** The body, whatever encoding goes out. */
        EncodedBody body() {
            return body;
        }

        @Override
        public void write(OutputStream output) throws IOException {
            output.write(bytes);
        }
    }
}
