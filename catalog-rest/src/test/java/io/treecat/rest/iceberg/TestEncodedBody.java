package io.treecat.rest.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.LoadTableResponseParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class TestEncodedBody {
    private static final String JSON = "{\"metadata\":\"" + "x".repeat(2000) + "\"}";

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "GZIP", "x-gzip", "deflate, gzip", " gzip ;q=0.5", "br;q=1.0, gzip;q=0.001"})
    void takesGzipWhenNamedWithAWeight(String header) {
        assertThat(EncodedBody.acceptsGzip(header)).isTrue();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "identity", "deflate, br", "*", "gzip;q=0", "gzip;q=0.0", "gzip;q=x", "gzipped"})
    void refusesGzipOtherwise(String header) {
        assertThat(EncodedBody.acceptsGzip(header)).isFalse();
    }

    @Test
    void compressesForAClientThatTakesGzipAndKeepsTheJson() throws IOException {
        Response response =
                EncodedBody.of(JSON).ok(ResponseGzip.DEFAULTS, "gzip").build();
        assertThat(response.getHeaderString(HttpHeaders.CONTENT_ENCODING)).isEqualTo("gzip");
        byte[] sent = written(response);
        assertThat(sent.length).isLessThan(JSON.length());
        assertThat(response.getHeaderString(HttpHeaders.CONTENT_LENGTH)).isEqualTo(String.valueOf(sent.length));
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(sent))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(JSON);
        }
        assertThat(((EncodedBody.Entity) response.getEntity()).body().json()).isEqualTo(JSON);
    }

    @Test
    void sendsItPlainWhenTheServerDoesNotCompressOrTheBodyIsSmall() throws IOException {
        for (Response response : new Response[] {
            EncodedBody.of(JSON).ok(new ResponseGzip(false, 256), "gzip").build(),
            EncodedBody.of(JSON)
                    .ok(new ResponseGzip(true, JSON.length() + 1), "gzip")
                    .build(),
            EncodedBody.of(JSON).ok(ResponseGzip.DEFAULTS, null).build()
        }) {
            assertThat(response.getHeaderString(HttpHeaders.CONTENT_ENCODING)).isNull();
            assertThat(new String(written(response), StandardCharsets.UTF_8)).isEqualTo(JSON);
        }
    }

    private static byte[] written(Response response) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ((EncodedBody.Entity) response.getEntity()).write(out);
        return out.toByteArray();
    }

    /**
     * A commit's answer wraps the metadata file's JSON as written instead of serializing the metadata again: it must
     * be the answer Iceberg's own serializer gives, for any location (quotes, backslashes, non-ASCII escaped right).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "file:/w/db/t/metadata/00001-a.metadata.json",
                "s3://b/we\"ird\\path/ünï/00002-b.metadata.json",
                "gs://b/t\tab/\u0001/00003-c.metadata.json"
            })
    void aLoadTableBodyAroundWrittenJsonIsWhatIcebergsSerializerGives(String location) {
        Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
        TableMetadata metadata = TableMetadata.buildFrom(TableMetadata.newTableMetadata(
                        schema, PartitionSpec.unpartitioned(), "file:/w/db/t", Map.of("k", "v\"q")))
                .discardChanges()
                .withMetadataLocation(location)
                .build();
        byte[] written = TableMetadataParser.toJson(metadata).getBytes(StandardCharsets.UTF_8);

        String body = EncodedBody.loadTable(location, written).json();

        LoadTableResponse parsed = LoadTableResponseParser.fromJson(body);
        assertThat(parsed.metadataLocation()).isEqualTo(location);
        assertThat(TableMetadataParser.toJson(parsed.tableMetadata())).isEqualTo(TableMetadataParser.toJson(metadata));
        assertThat(body)
                .isEqualTo(LoadTableResponseParser.toJson(
                        LoadTableResponse.builder().withTableMetadata(metadata).build()));

        // With the table's config: the same JSON as Iceberg's for a response with that config.
        Map<String, String> config = Map.of("scan-planning-mode", "server");
        assertThat(EncodedBody.loadTable(location, written, config).json())
                .isEqualTo(LoadTableResponseParser.toJson(LoadTableResponse.builder()
                        .withTableMetadata(metadata)
                        .addAllConfig(config)
                        .build()));
        // Keys and values are escaped as JSON strings.
        Map<String, String> odd = Map.of("scan-planning-mode", "server", "quote\"d", "a\\b");
        assertThat(LoadTableResponseParser.fromJson(
                                EncodedBody.loadTable(location, written, odd).json())
                        .config())
                .isEqualTo(odd);
    }

    @Test
    void aTablesOwnerAsksForServerOrClientPlanningWithAProperty() {
        assertThat(IcebergResource.tableConfig(Map.of("treecat.scan-planning-mode", " Server ")))
                .isEqualTo(Map.of("scan-planning-mode", "server"));
        assertThat(IcebergResource.tableConfig(Map.of("treecat.scan-planning-mode", "client")))
                .isEqualTo(Map.of("scan-planning-mode", "client"));
        assertThat(IcebergResource.tableConfig(Map.of("treecat.scan-planning-mode", "tree")))
                .isEmpty();
        assertThat(IcebergResource.tableConfig(Map.of("other", "x"))).isEmpty();
    }
}
