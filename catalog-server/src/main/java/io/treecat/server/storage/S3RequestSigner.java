package io.treecat.server.storage;

import io.treecat.lakehouse.storage.RequestSigner;
import io.treecat.lakehouse.storage.StoreFileIO;
import io.treecat.lakehouse.storage.Warehouse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * Signs S3 requests (SigV4, unsigned payload, as Iceberg's {@code S3V4RestSignerClient} asks) with the credentials of
 * the catalog's own {@code S3FileIO}: whatever its credential source gives (static keys, the default chain, an assumed
 * role), resolved now, so a refreshed role session is used as soon as the SDK has it. The keys never leave this class:
 * the client gets only the signed headers.
 */
public final class S3RequestSigner implements RequestSigner {
    private static final String SERVICE = "s3";
    /**
     * Headers never signed: those the client's SDK sets after signing or that a proxy may change, as the SDK does; and
     * {@code range}. Iceberg's {@code S3V4RestSignerClient} caches a GET's or HEAD's signature (answered {@code
     * Cache-Control: private}) by method, region and URI alone, then sends it with the new request's own headers: a
     * signed {@code Range} would make every later ranged read of the same object (a Parquet footer, then its column
     * chunks) fail the store's signature check with 403. Iceberg's own reference signer leaves it unsigned too; a range
     * only selects bytes of an object the scope already allows.
     */
    private static final List<String> UNSIGNED =
            List.of("user-agent", "amz-sdk-invocation-id", "amz-sdk-request", "range");

    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    @Override
    public Signed sign(Warehouse warehouse, Request request) {
        FileIO io = warehouse.io();
        if (io instanceof StoreFileIO store) {
            io = store.delegate();
        }
        if (!(io instanceof S3FileIO s3)) {
            throw new UnsupportedOperationException("The catalog's warehouse is not on S3");
        }
        IdentityProvider<? extends AwsCredentialsIdentity> credentials =
                s3.client().serviceClientConfiguration().credentialsProvider();
        // The SDK's providers resolve synchronously (static keys) or from their own cache (a role session).
        AwsCredentialsIdentity identity = credentials.resolveIdentity().join();
        SdkHttpRequest.Builder http = SdkHttpRequest.builder()
                .method(SdkHttpMethod.fromValue(request.method()))
                .uri(request.uri());
        request.headers().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!UNSIGNED.contains(lower) && !lower.equals("authorization")) {
                http.putHeader(name, values);
            }
        });
        SignedRequest signed = signer.sign(sign -> sign.identity(identity)
                .request(http.build())
                .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, SERVICE)
                .putProperty(AwsV4HttpSigner.REGION_NAME, request.region())
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false));
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(signed.request().headers());
        return new Signed(signed.request().getUri(), headers);
    }
}
