package io.treecat.server.storage;

import com.google.common.cache.CacheBuilder;
import com.google.common.cache.LoadingCache;
import com.google.common.cache.RemovalNotification;
import io.treecat.lakehouse.storage.CredentialVendor;
import io.treecat.lakehouse.storage.StorageCredentials;
import io.treecat.lakehouse.storage.StoreFileIO;
import io.treecat.lakehouse.storage.Warehouse;
import java.io.Closeable;
import java.net.URI;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.StsClientBuilder;
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest;
import software.amazon.awssdk.services.sts.model.Credentials;

/**
 * Vends credentials with STS {@code AssumeRole}, signed by the catalog's own identity: its static keys (the ones its
 * {@code S3FileIO} uses), or, for the {@code assume-role} source, the SDK's default chain (the identity that source
 * assumes its role from). STS is asked at the catalog's {@code sts-endpoint}, else its {@code s3.endpoint} (an
 * S3-compatible store that serves STS serves it there: MinIO, moto), else AWS's regional endpoint for
 * {@code client.region}. One STS client per catalog FileIO, closed when the FileIO is gone or at shutdown.
 */
public final class StsCredentialVendor implements CredentialVendor, Closeable {
    private static final String S3_ENDPOINT = "s3.endpoint";
    private static final String CLIENT_REGION = "client.region";
    private static final String DEFAULT_REGION = "us-east-1";

    /** By FileIO identity (weak keys compare by identity): a catalog whose settings change gets a new FileIO. */
    private final LoadingCache<StoreFileIO, StsClient> clients = CacheBuilder.newBuilder()
            .weakKeys()
            .removalListener((RemovalNotification<StoreFileIO, StsClient> removed) -> {
                if (removed.getValue() != null) {
                    removed.getValue().close();
                }
            })
            .build(com.google.common.cache.CacheLoader.from(StsCredentialVendor::client));

    @Override
    public Session assumeRole(Warehouse warehouse, Request request) {
        if (!(warehouse.io() instanceof StoreFileIO store) || !(store.delegate() instanceof S3FileIO)) {
            throw new UnsupportedOperationException("The catalog's warehouse is not on S3");
        }
        AssumeRoleRequest.Builder assume = AssumeRoleRequest.builder()
                .roleArn(request.roleArn())
                .roleSessionName(request.sessionName())
                .policy(request.policy())
                .durationSeconds((int) request.duration().toSeconds());
        if (request.externalId() != null) {
            assume.externalId(request.externalId());
        }
        Credentials credentials =
                clients.getUnchecked(store).assumeRole(assume.build()).credentials();
        return new Session(
                credentials.accessKeyId(),
                credentials.secretAccessKey(),
                credentials.sessionToken(),
                credentials.expiration());
    }

    private static StsClient client(StoreFileIO store) {
        Map<String, String> settings = store.settings();
        StorageCredentials references = store.credentials();
        IdentityProvider<? extends AwsCredentialsIdentity> identity =
                references.source() == StorageCredentials.Source.ASSUME_ROLE
                        ? DefaultCredentialsProvider.builder().build()
                        : ((S3FileIO) store.delegate())
                                .client()
                                .serviceClientConfiguration()
                                .credentialsProvider();
        String region = settings.getOrDefault(CLIENT_REGION, DEFAULT_REGION);
        StsClientBuilder builder = StsClient.builder()
                .httpClient(ApacheHttpClient.builder().build())
                .region(Region.of(region))
                .credentialsProvider(identity);
        String endpoint = references.stsEndpoint() != null ? references.stsEndpoint() : settings.get(S3_ENDPOINT);
        if (endpoint != null) {
            builder.endpointOverride(URI.create(endpoint));
        }
        return builder.build();
    }

    @Override
    public void close() {
        clients.invalidateAll();
        clients.cleanUp();
    }
}
