package io.treecat.benchmarks.iceberg;

import io.treecat.benchmarks.LatencyProxy;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * The S3-compatible store of the suite's S3 variants ({@link InsertsExperiment}): S3Proxy 2.6 in the driver's JVM on loopback
 * (over jclouds' in-memory blob store, one bucket, AWS signature v4 on one key pair; its Jetty is shaded), with a
 * {@link LatencyProxy} in front of it. Every client of the store goes through a proxy with the same fixed latency
 * per S3 request: the TreeCat server's warehouse through one, both catalogs' clients in this JVM through another, so
 * that the requests can be counted by side (and by method) as well as in all.
 *
 * <p>The keys are throwaway values for a store that lives and dies with the benchmark: the server gets them from
 * environment variables ({@code credentials.source: static}), as a deployment would, and the clients as Iceberg's
 * {@code s3.access-key-id}/{@code s3.secret-access-key} properties.
 */
final class S3Store implements AutoCloseable {
    static final String BUCKET = "bench";
    /** The REST prefix of the TreeCat catalog whose warehouse is {@code s3://bench/treecat}. */
    static final String CATALOG = "bench";

    private static final String ACCESS_KEY = "BENCHMARKACCESSKEY01";
    private static final String SECRET_KEY = "benchmark/secret/key/only/for/s3proxy";
    private static final String ACCESS_KEY_ENV = "TREECAT_BENCH_S3_ACCESS_KEY_ID";
    private static final String SECRET_KEY_ENV = "TREECAT_BENCH_S3_SECRET_ACCESS_KEY";
    /**
     * AWS SDK 2.30+ sends trailing checksums in aws-chunked bodies that S3Proxy 2.6 does not verify correctly
     * (docs/object-storage.md); the SDK's own switches, for this JVM's clients and the server's.
     */
    private static final Map<String, String> CHECKSUM_PROPERTIES = Map.of(
            "aws.requestChecksumCalculation", "when_required", "aws.responseChecksumValidation", "when_required");

    private final BlobStoreContext context;
    private final S3Proxy s3Proxy;
    private final LatencyProxy serverProxy;
    private final LatencyProxy clientProxy;

    private S3Store(Duration latency) throws Exception {
        CHECKSUM_PROPERTIES.forEach(System::setProperty);
        context = ContextBuilder.newBuilder("transient")
                .credentials("identity", "credential")
                .build(BlobStoreContext.class);
        s3Proxy = S3Proxy.builder()
                .blobStore(context.getBlobStore())
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .build();
        s3Proxy.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!"STARTED".equals(s3Proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("S3Proxy did not start: " + s3Proxy.getState());
            }
            Thread.sleep(10);
        }
        context.getBlobStore().createContainerInLocation(null, BUCKET);
        InetSocketAddress store = new InetSocketAddress("127.0.0.1", s3Proxy.getPort());
        serverProxy = LatencyProxy.start(store, latency);
        clientProxy = LatencyProxy.start(store, latency);
    }

    /** Starts S3Proxy with the bucket, and the latency proxy in front of it. */
    static S3Store start(Duration latency) throws Exception {
        return new S3Store(latency);
    }

    /** The store's endpoint for the catalogs' clients in this JVM: their latency proxy. */
    String endpoint() {
        return clientProxy.endpoint();
    }

    /** S3 requests so far, by side: the TreeCat server's, and the clients' in this JVM (both catalogs'). */
    record Requests(Map<String, Long> server, Map<String, Long> clients) {
        Requests {
            // Sorted by method, for the printed breakdown.
            server = Collections.unmodifiableMap(new TreeMap<>(server));
            clients = Collections.unmodifiableMap(new TreeMap<>(clients));
        }

        long serverTotal() {
            return server.values().stream().mapToLong(Long::longValue).sum();
        }

        long clientsTotal() {
            return clients.values().stream().mapToLong(Long::longValue).sum();
        }

        /** The requests since {@code earlier}. */
        Requests minus(Requests earlier) {
            return new Requests(difference(server, earlier.server), difference(clients, earlier.clients));
        }

        private static Map<String, Long> difference(Map<String, Long> later, Map<String, Long> earlier) {
            Map<String, Long> difference = new TreeMap<>();
            later.forEach((method, count) -> {
                long delta = count - earlier.getOrDefault(method, 0L);
                if (delta != 0) {
                    difference.put(method, delta);
                }
            });
            return difference;
        }
    }

    /** The requests begun so far on each side, by HTTP method. */
    Requests requests() {
        return new Requests(serverProxy.requestsByMethod(), clientProxy.requestsByMethod());
    }

    /** The FileIO properties of both catalogs' clients in the driver: {@code S3FileIO} at the proxy. */
    Map<String, String> clientProperties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
        properties.put("s3.endpoint", endpoint());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.access-key-id", ACCESS_KEY);
        properties.put("s3.secret-access-key", SECRET_KEY);
        properties.put("client.region", "us-east-1");
        properties.put("http-client.type", "apache");
        // Every simulated writer would be a process with its own S3 client: the SDK's default pool of 50 shared by
        // hundreds of commits in flight would measure the pool (as with the REST client's connections).
        properties.put("http-client.apache.max-connections", "2000");
        return properties;
    }

    /**
     * The server JVM's options: the SDK's checksum switches, and the catalog {@value #CATALOG} with its warehouse on
     * the store ({@code warehouse.catalogs.bench}, a property's own dots escaped as Dropwizard's overrides take them).
     */
    List<String> serverJvmOptions() {
        String prefix = "-Ddw.warehouse.catalogs." + CATALOG + ".";
        List<String> options = new ArrayList<>();
        CHECKSUM_PROPERTIES.forEach((key, value) -> options.add("-D" + key + "=" + value));
        options.addAll(List.of(
                prefix + "location=s3://" + BUCKET + "/treecat",
                prefix + "properties.s3\\.endpoint=" + serverProxy.endpoint(),
                prefix + "properties.s3\\.path-style-access=true",
                prefix + "properties.client\\.region=us-east-1",
                prefix + "credentials.source=static",
                prefix + "credentials.access-key-id-env=" + ACCESS_KEY_ENV,
                prefix + "credentials.secret-access-key-env=" + SECRET_KEY_ENV));
        return options;
    }

    /** The server process's environment: the keys its static credentials name. */
    Map<String, String> serverEnvironment() {
        return Map.of(ACCESS_KEY_ENV, ACCESS_KEY, SECRET_KEY_ENV, SECRET_KEY);
    }

    /** The store's endpoint for servers in other JVMs (the peers'): the server-side latency proxy. */
    String serverEndpoint() {
        return serverProxy.endpoint();
    }

    String accessKey() {
        return ACCESS_KEY;
    }

    String secretKey() {
        return SECRET_KEY;
    }

    /** The SDK's checksum switches, for a peer server's JVM on this store. */
    static List<String> checksumJvmOptions() {
        List<String> options = new ArrayList<>();
        CHECKSUM_PROPERTIES.forEach((key, value) -> options.add("-D" + key + "=" + value));
        return options;
    }

    /** The JDBC catalog's warehouse, beside TreeCat's in the same bucket. */
    String jdbcWarehouse() {
        return "s3://" + BUCKET + "/jdbc";
    }

    @Override
    public void close() throws Exception {
        try {
            serverProxy.close();
            clientProxy.close();
        } finally {
            try {
                s3Proxy.stop();
            } finally {
                context.close();
            }
        }
    }
}
