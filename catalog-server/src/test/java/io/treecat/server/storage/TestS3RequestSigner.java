package io.treecat.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.lakehouse.storage.RequestSigner;
import io.treecat.lakehouse.storage.Warehouse;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;

/**
 * What the server signs of a client's S3 request. No store is contacted: signing is local (IcebergRestS3SparkIT runs
 * the signed ranged reads against a store that checks them).
 */
class TestS3RequestSigner {
    private static final URI OBJECT = URI.create("http://127.0.0.1:9000/lake/w/ns/t/data/a.parquet");

    private static RequestSigner.Signed sign(String method, Map<String, List<String>> headers) {
        try (S3FileIO io = new S3FileIO()) {
            io.initialize(Map.of(
                    "s3.endpoint", "http://127.0.0.1:9000",
                    "s3.path-style-access", "true",
                    "client.region", "us-east-1",
                    "s3.access-key-id", "AKIDSIGNERTEST",
                    "s3.secret-access-key", "signer/test/secret"));
            return new S3RequestSigner()
                    .sign(
                            new Warehouse("lake", "s3://lake/w", io),
                            new RequestSigner.Request(method, OBJECT, "us-east-1", headers));
        }
    }

    private static String authorization(RequestSigner.Signed signed) {
        return signed.headers().get("Authorization").get(0);
    }

    /**
     * Iceberg's client reuses a GET's signature for the same URI whatever the next request's Range: a signed Range
     * would fail every later ranged read of the object at the store.
     */
    @Test
    void rangeIsNotSignedSoACachedSignatureServesEveryRange() {
        RequestSigner.Signed signed = sign(
                "GET",
                Map.of(
                        "Range", List.of("bytes=100-"),
                        "Host", List.of("127.0.0.1:9000"),
                        "amz-sdk-invocation-id", List.of("1f2e")));
        String authorization = authorization(signed);
        assertThat(authorization).startsWith("AWS4-HMAC-SHA256 Credential=AKIDSIGNERTEST/");
        String signedHeaders = authorization.replaceAll(".*SignedHeaders=([^,]*),.*", "$1");
        assertThat(signedHeaders.split(";"))
                .contains("host", "x-amz-date")
                .doesNotContain("range", "amz-sdk-invocation-id");
        assertThat(signed.headers()).containsKey("x-amz-content-sha256");
        assertThat(signed.headers().get("x-amz-content-sha256")).containsExactly("UNSIGNED-PAYLOAD");
    }

    @Test
    void otherHeadersStaySigned() {
        RequestSigner.Signed signed = sign(
                "PUT", Map.of("Content-Type", List.of("application/octet-stream"), "Content-Length", List.of("10")));
        String signedHeaders = authorization(signed).replaceAll(".*SignedHeaders=([^,]*),.*", "$1");
        assertThat(signedHeaders.split(";")).contains("content-type", "content-length");
    }
}
