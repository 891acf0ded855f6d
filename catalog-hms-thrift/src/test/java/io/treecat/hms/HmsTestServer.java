package io.treecat.hms;

import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.GrantsAuthorizer;
import io.treecat.lakehouse.storage.ExternalLocations;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The HMS tests' one fixture: per test, a fresh RocksDB tree and an HMS server on a free loopback port
 * serving catalog {@code warehouse}, and the clients a test opens, all closed after it. Register it as
 * a field: {@code @RegisterExtension final HmsTestServer hms = new HmsTestServer();}.
 *
 * <p>Layout of {@link #directory()}: {@code db/} the tree, {@code warehouse/} the warehouse root
 * ({@link #warehouse()}), so catalog {@code warehouse}'s default locations are under {@code warehouse/warehouse/}.
 */
final class HmsTestServer implements BeforeEachCallback, AfterEachCallback {
    private final Duration lockTimeout;
    private final Clock clock;
    private final HmsTransportConfig transport;
    private final ExternalLocations external;
    private final HiveFilterLimits filterLimits;
    private final HmsAuthentication authentication;
    private final List<AutoCloseable> clients = new ArrayList<>();
    /** The server's authorizer, made on the tree (allow-all unless a test asks for grants). */
    private Function<Supplier<CatalogService>, Authorizer> authorizers = service -> Authorizer.allowAll();

    private Path directory;
    private CatalogService catalog;
    private TreeCatHmsServer server;

    HmsTestServer() {
        this(HmsServerConfig.DEFAULT_LOCK_TIMEOUT, Clock.systemUTC());
    }

    private HmsTestServer(Duration lockTimeout, Clock clock) {
        this(lockTimeout, clock, HmsTransportConfig.DEFAULTS, ExternalLocations.ALLOWED, HiveFilterLimits.DEFAULTS);
    }

    private HmsTestServer(
            Duration lockTimeout,
            Clock clock,
            HmsTransportConfig transport,
            ExternalLocations external,
            HiveFilterLimits filterLimits) {
        this(
                lockTimeout,
                clock,
                transport,
                external,
                filterLimits,
                HmsAuthentication.none(),
                service -> Authorizer.allowAll());
    }

    private HmsTestServer(
            Duration lockTimeout,
            Clock clock,
            HmsTransportConfig transport,
            ExternalLocations external,
            HiveFilterLimits filterLimits,
            HmsAuthentication authentication,
            Function<Supplier<CatalogService>, Authorizer> authorizer) {
        this.authentication = authentication;
        this.authorizers = authorizer;
        this.lockTimeout = lockTimeout;
        this.clock = clock;
        this.transport = transport;
        this.external = external;
        this.filterLimits = filterLimits;
    }

    /** A server with these transport settings (framing, limits, idle timeout, per-client cap). */
    static HmsTestServer withTransport(HmsTransportConfig transport) {
        return new HmsTestServer(
                HmsServerConfig.DEFAULT_LOCK_TIMEOUT,
                Clock.systemUTC(),
                transport,
                ExternalLocations.ALLOWED,
                HiveFilterLimits.DEFAULTS);
    }

    /**
     * A server that authenticates its clients with {@code authentication} and authorizes their calls with the
     * authorizer {@code authorizer} makes over the tree.
     */
    static HmsTestServer withAuthentication(
            HmsTransportConfig transport,
            HmsAuthentication authentication,
            Function<Supplier<CatalogService>, Authorizer> authorizer) {
        return new HmsTestServer(
                HmsServerConfig.DEFAULT_LOCK_TIMEOUT,
                Clock.systemUTC(),
                transport,
                ExternalLocations.ALLOWED,
                HiveFilterLimits.DEFAULTS,
                authentication,
                authorizer);
    }

    /** A server whose clients may place objects outside the warehouse only if {@code external} allows it. */
    static HmsTestServer withExternalLocations(ExternalLocations external) {
        return new HmsTestServer(
                HmsServerConfig.DEFAULT_LOCK_TIMEOUT,
                Clock.systemUTC(),
                HmsTransportConfig.DEFAULTS,
                external,
                HiveFilterLimits.DEFAULTS);
    }

    /** A server with these limits on Hive filters ({@code hms.filter.*}). */
    static HmsTestServer withFilterLimits(HiveFilterLimits limits) {
        return new HmsTestServer(
                HmsServerConfig.DEFAULT_LOCK_TIMEOUT,
                Clock.systemUTC(),
                HmsTransportConfig.DEFAULTS,
                ExternalLocations.ALLOWED,
                limits);
    }

    /**
     * A server whose calls are decided by the grants stored in its tree ({@link GrantsAuthorizer}, as with
     * {@code auth.enabled}), {@code admins} holding ALL on the root; HMS calls run as the anonymous principal.
     */
    static HmsTestServer withGrants(Set<String> admins) {
        HmsTestServer server = new HmsTestServer();
        server.authorizers = service -> new GrantsAuthorizer(service, admins);
        return server;
    }

    /** A server whose HMS locks expire after {@code timeout} without a heartbeat. */
    static HmsTestServer withLockTimeout(Duration timeout) {
        return new HmsTestServer(timeout, Clock.systemUTC());
    }

    /** A server that measures lock and transaction timeouts ({@code timeout}) on {@code clock}, which a test moves. */
    static HmsTestServer withClock(Clock clock, Duration timeout) {
        return new HmsTestServer(timeout, clock);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        directory = Files.createTempDirectory("treecat-hms-");
        open();
    }

    private void open() {
        catalog = CatalogService.open(directory.resolve("db"));
        CatalogService opened = catalog;
        server = new TreeCatHmsServer(
                new TransactionRunner(() -> opened, authorizers.apply(() -> opened)),
                Warehouses.underRoot(warehouse(), new LocalFileIO(), external),
                HmsServerConfig.of("127.0.0.1", 0, "warehouse", warehouse())
                        .withLockTimeout(lockTimeout)
                        .withTransport(transport)
                        .withFilterLimits(filterLimits),
                authentication,
                clock);
        server.start();
    }

    /**
     * Stops the server and closes the tree, then opens both again on the same directory, as a restart of the
     * process does (clients opened before are closed; the new server listens on a new port).
     */
    void restart() throws Exception {
        restart(stopped -> {});
    }

    /**
     * As {@link #restart()}, running {@code whileDown} on the tree after the HMS server stopped and before the tree
     * closes: what happens while no HMS listener runs (commits over another interface, garbage collection).
     */
    void restart(Consumer<CatalogService> whileDown) throws Exception {
        closeClients();
        server.shutdown();
        whileDown.accept(catalog);
        catalog.close();
        open();
    }

    private void closeClients() throws Exception {
        for (int i = clients.size() - 1; i >= 0; i--) {
            clients.get(i).close();
        }
        clients.clear();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        closeClients();
        server.shutdown();
        catalog.close();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(HmsTestServer::delete);
        }
    }

    private static void delete(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This test's own directory (deleted after it). */
    Path directory() {
        return directory;
    }

    /** The warehouse root, a {@code file:} URI. */
    String warehouse() {
        return directory.resolve("warehouse").toUri().toString();
    }

    /** The tree the server serves, for reading what a call stored. */
    CatalogService catalog() {
        return catalog;
    }

    TreeCatHmsServer server() {
        return server;
    }

    int port() {
        return server.port();
    }

    /** {@code thrift://127.0.0.1:<port>}. */
    String uri() {
        return "thrift://127.0.0.1:" + port();
    }

    /** An open socket to the server, closed after the test. */
    TSocket socket() throws Exception {
        TSocket socket = new TSocket("127.0.0.1", port());
        socket.open();
        clients.add(socket::close);
        return socket;
    }

    /** A new connection with Hive's generated client, closed after the test. */
    ThriftHiveMetastore.Client client() throws Exception {
        return new ThriftHiveMetastore.Client(new TBinaryProtocol(socket()));
    }

    /** A new connection with Hive's own HiveMetaStoreClient, closed after the test. */
    HiveMetaStoreClient hiveClient() throws Exception {
        return hiveClient(java.util.Map.of());
    }

    /** As {@link #hiveClient()}, with these client settings as well (authentication, framing, retries). */
    HiveMetaStoreClient hiveClient(java.util.Map<String, String> settings) throws Exception {
        Configuration conf = new Configuration(false);
        conf.set("metastore.thrift.uris", uri());
        settings.forEach(conf::set);
        HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
        clients.add(client::close);
        return client;
    }
}
