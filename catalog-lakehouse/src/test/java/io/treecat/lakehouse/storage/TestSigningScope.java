package io.treecat.lakehouse.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class TestSigningScope {
    private static final SigningScope SCOPE = SigningScope.of("s3://lake/warehouse/ns/t");

    private static String refusal(String method, String uri) {
        return SCOPE.refusal(method, URI.create(uri), null);
    }

    @Test
    void objectsUnderTheTableAreSignedInBothAddressingStyles() {
        assertThat(refusal("GET", "http://store:9000/lake/warehouse/ns/t/metadata/v1.json"))
                .isNull();
        assertThat(refusal("PUT", "http://lake.s3.amazonaws.com/warehouse/ns/t/data/a.parquet"))
                .isNull();
        assertThat(refusal("HEAD", "http://store/lake/warehouse/ns/t/data/a%20b.parquet"))
                .isNull();
        // Multipart: create, upload a part, complete, abort.
        assertThat(refusal("POST", "http://store/lake/warehouse/ns/t/data/big?uploads"))
                .isNull();
        assertThat(refusal("PUT", "http://store/lake/warehouse/ns/t/data/big?partNumber=2&uploadId=x"))
                .isNull();
        assertThat(refusal("POST", "http://store/lake/warehouse/ns/t/data/big?uploadId=x"))
                .isNull();
        assertThat(refusal("DELETE", "http://store/lake/warehouse/ns/t/data/big?uploadId=x"))
                .isNull();
        assertThat(refusal("GET", "http://store/lake?list-type=2&prefix=warehouse/ns/t/data/"))
                .isNull();
    }

    @Test
    void everythingElseIsRefused() {
        assertThat(refusal("GET", "http://store/lake/warehouse/ns/other/metadata/v1.json"))
                .isEqualTo("the key is outside the table's location");
        assertThat(refusal("GET", "http://store/lake/warehouse/ns/t2/x"))
                .isEqualTo("the key is outside the table's location");
        assertThat(refusal("GET", "http://store/lake/warehouse/ns/t"))
                .isEqualTo("the key is outside the table's location");
        assertThat(refusal("GET", "http://store/lake/warehouse/ns/t/../other/x"))
                .isEqualTo("the key holds a . or .. segment");
        assertThat(refusal("GET", "http://store/lake/warehouse/ns/t/%2e%2e/other/x"))
                .isEqualTo("the key holds a . or .. segment");
        assertThat(refusal("GET", "http://store/lake/warehouse/ns/t%2F..%2Fother/x"))
                .isEqualTo("the key holds an encoded slash");
        assertThat(refusal("GET", "http://store/other/warehouse/ns/t/x"))
                .isEqualTo("the request is for another bucket");
        assertThat(refusal("GET", "http://other.store/warehouse/ns/t/x"))
                .isEqualTo("the request is for another bucket");
        assertThat(refusal("PATCH", "http://store/lake/warehouse/ns/t/x"))
                .isEqualTo("method PATCH is not one S3FileIO uses");
        assertThat(refusal("GET", "http://store/lake?list-type=2&prefix=warehouse/"))
                .isEqualTo("the listing is not under the table's location");
        assertThat(refusal("DELETE", "http://store/lake"))
                .isEqualTo("bucket requests other than a listing and DeleteObjects are not signed");
    }

    @Test
    void withTheCatalogsEndpointOnlyThatStoreIsSigned() {
        SigningScope scope = SCOPE.onEndpoint("http://store:9000");
        assertThat(scope.refusal("GET", URI.create("http://store:9000/lake/warehouse/ns/t/x"), null))
                .isNull();
        assertThat(scope.refusal("GET", URI.create("http://lake.store:9000/warehouse/ns/t/x"), null))
                .isNull();
        assertThat(scope.refusal("GET", URI.create("https://s3.amazonaws.com/lake/warehouse/ns/t/x"), null))
                .isEqualTo("the request is for another host than the catalog's store");
        assertThat(scope.refusal("GET", URI.create("http://store:9001/lake/warehouse/ns/t/x"), null))
                .isEqualTo("the request is for another host than the catalog's store");
    }

    @Test
    void deleteObjectsIsSignedOnlyWhenEveryKeyIsInside() {
        URI uri = URI.create("http://store/lake?delete");
        String inside = "<Delete><Object><Key>warehouse/ns/t/data/a</Key></Object>"
                + "<Object><Key>warehouse/ns/t/data/b</Key></Object></Delete>";
        String outside = "<Delete><Object><Key>warehouse/ns/t/data/a</Key></Object>"
                + "<Object><Key>warehouse/ns/u/data/b</Key></Object></Delete>";
        assertThat(SCOPE.refusal("POST", uri, inside)).isNull();
        assertThat(SCOPE.refusal("POST", uri, outside))
                .isEqualTo("the DeleteObjects request names a key outside the table's location");
        assertThat(SCOPE.refusal("POST", uri, null)).isEqualTo("the DeleteObjects request has no body to check");
    }

    @Test
    void onlyTablesBelowABucketOnS3HaveAScope() {
        assertThatThrownBy(() -> SigningScope.of("s3://lake"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Remote signing needs a table location below its bucket's root");
        assertThatThrownBy(() -> SigningScope.of("s3://lake/w/a?b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Remote signing needs a table location without '?' or '#'");
        assertThatThrownBy(() -> SigningScope.of("file:/tmp/t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Remote signing serves only tables on S3");
        assertThat(SigningScope.of("s3a://lake/warehouse/ns/t/")
                        .refusal("GET", URI.create("http://store/lake/warehouse/ns/t/x"), null))
                .isNull();
    }
}
