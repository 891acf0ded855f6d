package io.treecat.spark;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.ListContainerOptions;

/**
 * A real S3-compatible server on loopback, in the test JVM: S3Proxy over jclouds' in-memory blob store, checking AWS
 * signature v4 on one key pair, so a request the TreeCat server did not sign is refused. The same set-up as
 * catalog-server's S3ProxyServer (whose test classes this module cannot depend on without Dropwizard's tree); S3Proxy
 * ships its Jetty shaded and Spark 4 shades its own, so the two do not meet.
 */
final class S3ProxyStore implements AutoCloseable {
    /** Recognisable, so a test can look for them where they must not be. */
    static final String ACCESS_KEY = "TREECATSPARKACCESSKEY";

    static final String SECRET_KEY = "treecat/Spark+Secret/Key/4b1d7e0c9a";

    private final BlobStoreContext context;
    private final S3Proxy proxy;

    S3ProxyStore() throws Exception {
        // AWS SDK 2.30+ sends a trailing checksum in aws-chunked bodies by default, which S3Proxy 2.6 does not verify
        // correctly ("x-amz-content-sha256 does not match"); docs/object-storage.md. For every SDK client in this JVM:
        // Spark's S3FileIO (driver and executors are threads of it). The server process gets the same two options.
        System.setProperty("aws.requestChecksumCalculation", "when_required");
        System.setProperty("aws.responseChecksumValidation", "when_required");
        context = ContextBuilder.newBuilder("transient")
                .credentials("identity", "credential")
                .build(BlobStoreContext.class);
        proxy = S3Proxy.builder()
                .blobStore(context.getBlobStore())
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .build();
        proxy.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
            }
            Thread.sleep(10);
        }
    }

    /** The SDK options the TreeCat server's JVM needs for this store (see the constructor). */
    static List<String> serverJavaOptions() {
        return List.of(
                "-Daws.requestChecksumCalculation=when_required", "-Daws.responseChecksumValidation=when_required");
    }

    String endpoint() {
        return "http://127.0.0.1:" + proxy.getPort();
    }

    void createBucket(String bucket) {
        context.getBlobStore().createContainerInLocation(null, bucket);
    }

    /** Every object key in {@code bucket} that starts with {@code prefix}, read from the store itself. */
    List<String> keys(String bucket, String prefix) {
        List<String> keys = new ArrayList<>();
        for (StorageMetadata item : context.getBlobStore()
                .list(bucket, ListContainerOptions.Builder.recursive().prefix(prefix))) {
            if (item.getName().startsWith(prefix)) {
                keys.add(item.getName());
            }
        }
        return keys;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
