package io.treecat.server;

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
 * A real S3-compatible server on loopback, in this JVM: S3Proxy over jclouds' in-memory blob store, with AWS
 * signature v4 authentication on one key pair. S3Proxy ships its Jetty shaded, so it does not meet Dropwizard's.
 */
final class S3ProxyServer implements AutoCloseable {
    /** Recognisable, so a test can look for them in every log line and error body. */
    static final String ACCESS_KEY = "TREECATTESTACCESSKEY7";

    static final String SECRET_KEY = "treecat/Test+Secret/Key/9f3c1e77a2b4d6";

    private final BlobStoreContext context;
    private final S3Proxy proxy;

    S3ProxyServer() throws Exception {
        // AWS SDK 2.30+ sends a trailing checksum in aws-chunked bodies by default, which S3Proxy 2.6 does not
        // verify correctly ("x-amz-content-sha256 does not match"); many S3-compatible stores need the same setting
        // (docs/object-storage.md). For every SDK client in this JVM: the server's and the test's.
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
            Thread.onSpinWait();
        }
    }

    String endpoint() {
        return "http://127.0.0.1:" + proxy.getPort();
    }

    void createBucket(String bucket) {
        context.getBlobStore().createContainerInLocation(null, bucket);
    }

    /** Every object key in {@code bucket}, recursively. */
    List<String> keys(String bucket) {
        List<String> keys = new ArrayList<>();
        for (StorageMetadata item : context.getBlobStore().list(bucket, ListContainerOptions.Builder.recursive())) {
            keys.add(item.getName());
        }
        return keys;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
