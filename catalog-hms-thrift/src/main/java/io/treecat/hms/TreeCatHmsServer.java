package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.service.CatalogService;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.lakehouse.auth.Grants;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.storage.LocalFileIO;
import io.treecat.lakehouse.storage.Warehouses;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TBaseProcessor;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TIOStreamTransport;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hive Metastore Thrift listener (port 9083) on the lake: binary protocol, unframed (or framed, {@link
 * HmsTransportConfig#framed}), one thread per connection ({@link TThreadPoolServer}), as Hive's own metastore
 * serves. The socket, framing and protocol are this package's ({@link HmsServerTransport}, {@link
 * HmsFramedTransport}, {@link HmsProtocol}): they enforce the request size limits without allocating a declared
 * size first, the idle timeout and the per-client connection cap (docs/robustness.md, "Thrift: limits").
 *
 * <p>The calls are split by API area, as Trino's {@code ThriftHiveMetastore} is
 * ({@link #AREAS}); {@link HmsDispatch} serves each call from the one area that has it. Only those
 * calls are in the processor's map; for any other name Thrift's {@link TBaseProcessor} answers
 * {@code TApplicationException(UNKNOWN_METHOD)}, which Spark's and Trino's fallbacks rely on. A
 * malformed request (garbage, a truncated message) fails only its own connection.
 *
 * <p>Every call runs through the shared {@link TransactionRunner} (authorization, one lake
 * transaction, retries of lost races); the default locations come from the shared {@link Warehouses}.
 */
public final class TreeCatHmsServer {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCatHmsServer.class);

    /** The call areas: each serves its Iface calls by name; no call is served twice. */
    static final List<Class<?>> AREAS = List.of(
            HmsServiceCalls.class,
            HmsDatabaseCalls.class,
            HmsTableCalls.class,
            HmsSchemaCalls.class,
            HmsTruncateCalls.class,
            HmsConstraintCalls.class,
            HmsPartitionCalls.class,
            HmsPartitionSpecCalls.class,
            HmsExchangeCalls.class,
            HmsStatisticsCalls.class,
            HmsLockCalls.class,
            HmsFunctionCalls.class,
            HmsCatalogCalls.class,
            HmsConfigCalls.class,
            HmsPartitionEventCalls.class,
            HmsTxnCalls.class,
            HmsCompactionCalls.class,
            HmsNotificationCalls.class,
            HmsRoleCalls.class,
            HmsPrivilegeCalls.class);

    private final TransactionRunner runner;
    private final HmsServerConfig config;
    private final HmsLocks locks;
    private final HmsSessions sessions = new HmsSessions();
    private final HmsCatalogCalls catalogCalls;
    private final HmsTableCalls tableCalls;
    private final TBaseProcessor<?> processor;
    private final HmsAuthentication authentication;
    private final HmsEventLog eventLog;
    private final HmsEventIndexer eventIndexer;
    private volatile HmsServerTransport socket;
    private volatile TServer server;
    private volatile Thread thread;

    /**
     * @param runner the lake's transaction runner, shared with the other interfaces
     * @param warehouses where each catalog's files live (default database, table and partition locations)
     */
    public TreeCatHmsServer(TransactionRunner runner, Warehouses warehouses, HmsServerConfig config) {
        this(runner, warehouses, config, HmsAuthentication.none(), Clock.systemUTC());
    }

    /**
     * @param authentication how clients prove who they are; each call runs as the principal its connection proved
     */
    public TreeCatHmsServer(
            TransactionRunner runner, Warehouses warehouses, HmsServerConfig config, HmsAuthentication authentication) {
        this(runner, warehouses, config, authentication, Clock.systemUTC());
    }

    /** With the clock lock and transaction timeouts are measured on (tests move one by hand). */
    TreeCatHmsServer(TransactionRunner runner, Warehouses warehouses, HmsServerConfig config, Clock clock) {
        this(runner, warehouses, config, HmsAuthentication.none(), clock);
    }

    TreeCatHmsServer(
            TransactionRunner runner,
            Warehouses warehouses,
            HmsServerConfig config,
            HmsAuthentication authentication,
            Clock clock) {
        this.runner = requireNonNull(runner, "runner is null");
        this.config = requireNonNull(config, "config is null");
        this.authentication = requireNonNull(authentication, "authentication is null");
        // Each call runs as the principal of the connection the current thread serves.
        HmsCalls hive = new HmsCalls(runner, warehouses, new HmsNames(config.catalog()), sessions::principal);
        this.locks = new HmsLocks(hive, clock, config.lockTimeout());
        // What holds state of the whole server is made once and is the same in every catalog's areas. Hive's
        // transactions are the metastore's, not a catalog's: they live in hive's catalog whichever catalog a call
        // names.
        HmsServiceCalls service = new HmsServiceCalls(config.catalog());
        HmsTransactions transactions = new HmsTransactions(hive, locks, clock, config.lockTimeout());
        HmsLockCalls lockCalls = new HmsLockCalls(locks, transactions);
        this.catalogCalls = new HmsCatalogCalls(hive);
        // Hive's privilege and role calls read and write the lakehouse's roles and grants (docs/security.md).
        Grants grants = new Grants(runner, clock);
        HmsConfigCalls configCalls = new HmsConfigCalls(hive, sessions, config.lockTimeout());
        HmsColumnTypeChanges typeChanges = new HmsColumnTypeChanges(sessions);
        // Hive's notification log is the metastore's, every catalog's events in one sequence: one for the server.
        this.eventLog = new HmsEventLog(
                runner::service,
                // The log is derived from the commits by the server itself, for every client: whatever the grants say.
                new HmsCommitEvents(hive.asServer()),
                HmsEventCheckpointStore.inTree(hive),
                HmsEventLog.STRIDE);
        this.eventIndexer = new HmsEventIndexer(eventLog, runner::service);
        HmsNotificationCalls notifications = new HmsNotificationCalls(eventLog, hive);
        // The areas of one catalog: hive's are made once; another catalog's for each call in it (HmsDispatch).
        Function<HmsCalls, List<?>> areas = calls -> {
            HmsPartitions partitions = new HmsPartitions(calls.catalog(), calls.warehouse(), config.filterLimits());
            HmsTableCalls tables = new HmsTableCalls(calls, partitions, typeChanges);
            return List.of(
                    service,
                    new HmsDatabaseCalls(calls, partitions),
                    tables,
                    new HmsSchemaCalls(calls),
                    new HmsTruncateCalls(calls, partitions),
                    new HmsConstraintCalls(calls, tables),
                    new HmsPartitionCalls(calls, partitions),
                    new HmsPartitionSpecCalls(calls, partitions),
                    new HmsExchangeCalls(calls, partitions),
                    new HmsStatisticsCalls(calls, partitions),
                    lockCalls,
                    new HmsFunctionCalls(calls),
                    catalogCalls,
                    configCalls,
                    new HmsPartitionEventCalls(calls, clock),
                    new HmsTxnCalls(transactions, new HmsWriteIds(calls, transactions)),
                    new HmsCompactionCalls(calls, hive, clock),
                    notifications,
                    new HmsRoleCalls(calls, grants),
                    new HmsPrivilegeCalls(calls, grants));
        };
        ThriftHiveMetastore.Iface iface = HmsDispatch.iface(hive, areas);
        // Spark's Hive 2.3 client sends the legacy table reads without catalogs: hive's table calls answer them.
        this.tableCalls = new HmsTableCalls(
                hive, new HmsPartitions(hive.catalog(), hive.warehouse(), config.filterLimits()), typeChanges);
        this.processor =
                HmsDispatch.processor(iface, HmsDispatch.implementations(AREAS).keySet());
    }

    /**
     * A server with its own runner (allow-all) and every catalog's files under {@code config.warehouse()}
     * ({@code <warehouse>/<catalog>}), for tests and tools that run no other interface.
     */
    public TreeCatHmsServer(CatalogService service, HmsServerConfig config) {
        this(service, config, Clock.systemUTC());
    }

    TreeCatHmsServer(CatalogService service, HmsServerConfig config, Clock clock) {
        this(
                new TransactionRunner(() -> service, Authorizer.allowAll()),
                Warehouses.underRoot(config.warehouse(), new LocalFileIO()),
                config,
                clock);
    }

    /** The Thrift calls served: every other one is UNKNOWN_METHOD. */
    public static Set<String> servedCalls() {
        Set<String> served = new TreeSet<>(HmsDispatch.implementations(AREAS).keySet());
        served.addAll(LegacyCalls.NAMES);
        return served;
    }

    /**
     * Makes what a Hive Metastore has from its first start ({@link HmsCatalogCalls#ensureDefaults}: the {@code hive}
     * catalog and its database {@code default}, in one transaction, written only if missing), then listens.
     */
    public synchronized void start() {
        if (server != null) {
            throw new IllegalStateException("Already started");
        }
        try {
            catalogCalls.ensureDefaults();
        } catch (TException | RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot make the HMS default database in catalog '" + config.catalog() + "': " + e.getMessage(), e);
        }
        try {
            // Before clients: the log's pin holds retention back from the commits its index has not saved.
            eventIndexer.start();
        } catch (TException | RuntimeException e) {
            throw new IllegalStateException(
                    "Cannot open the Hive notification log's index in catalog '" + config.catalog() + "': "
                            + e.getMessage(),
                    e);
        }
        try {
            socket = new HmsServerTransport(
                    new InetSocketAddress(config.host(), config.port()), config.transport(), config.sockets());
        } catch (TTransportException e) {
            throw new IllegalStateException(
                    "Cannot bind the HMS Thrift port " + config.host() + ":" + config.port() + ": " + e.getMessage(),
                    e);
        }
        HmsTransportConfig limits = config.transport();
        TThreadPoolServer.Args args = new TThreadPoolServer.Args(socket)
                .processor(calls())
                // Who each connection is, told before its first call, on its worker thread (SASL PLAIN or none).
                .transportFactory(new HmsAuthTransport(limits, authentication))
                .protocolFactory(HmsProtocol.factory(limits))
                .minWorkerThreads(config.minThreads())
                .maxWorkerThreads(config.maxThreads());
        TServer started = new TThreadPoolServer(args);
        // Per-connection settings (setMetaConf) live as long as their connection.
        started.setServerEventHandler(sessions);
        server = started;
        Thread serving = new Thread(started::serve, "treecat-hms-" + port());
        serving.setDaemon(true);
        serving.start();
        thread = serving;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!started.isServing() && System.nanoTime() < deadline && serving.isAlive()) {
            Thread.onSpinWait();
            Thread.yield();
        }
        LOG.info(
                "HMS Thrift listening on {}:{} ({}), catalog '{}' ({} calls served)",
                config.host(),
                port(),
                limits.framed() ? "framed" : "unframed",
                config.catalog(),
                servedCalls().size());
    }

    /** Every served call, behind the gate that serves nothing to a connection that proved nobody. */
    private TProcessor calls() {
        return new HmsAuthGate(sessions, new LegacyCalls(tableCalls, processor));
    }

    /**
     * Serves one call read from {@code in} as {@code principal}, with no connection of its own: Hive's HTTP transport
     * (each request one call, its principal from the request's bearer token). Whatever the call fails with is
     * answered in {@code out} as over the Thrift port.
     */
    public void processAs(Principal principal, TProtocol in, TProtocol out) throws TException {
        requireNonNull(principal, "principal is null");
        TProcessor calls = calls();
        sessions.callAs(principal, () -> {
            calls.process(in, out);
            return null;
        });
    }

    /**
     * Serves one request of Hive's HTTP transport ({@code metastore.client.thrift.transport.mode=http}: each POST
     * body one Thrift binary call, the answer the response body) as {@code principal}, whom the caller authenticated
     * (a bearer token). The request passes the same protocol limits as the Thrift port's ({@code hms.max-*}).
     */
    public void processHttp(Principal principal, InputStream body, OutputStream answer) throws TException {
        TIOStreamTransport transport = new TIOStreamTransport(body, answer);
        TProtocol protocol = HmsProtocol.factory(config.transport()).getProtocol(transport);
        processAs(principal, protocol, protocol);
    }

    /** The bound port, or -1 before start. */
    public int port() {
        HmsServerTransport bound = socket;
        return bound == null ? -1 : bound.serverSocket().getLocalPort();
    }

    public boolean isServing() {
        TServer running = server;
        return running != null && running.isServing();
    }

    /**
     * Stops accepting, then waits a while for the serving thread to end; then stops the notification log's indexer
     * and releases its pin.
     */
    public synchronized void shutdown() {
        TServer running = server;
        if (running != null) {
            running.stop();
            Thread serving = thread;
            if (serving != null) {
                try {
                    serving.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        eventIndexer.close();
    }

    CatalogService service() {
        return runner.service();
    }

    /** How many connections {@code address} holds open (tests of the per-client cap). */
    int openConnections(java.net.InetAddress address) {
        HmsServerTransport bound = socket;
        return bound == null ? 0 : bound.openConnections(address);
    }

    /** The notification log (tests read its index). */
    HmsEventLog eventLog() {
        return eventLog;
    }

    /** What keeps the log's index saved (tests pause it). */
    HmsEventIndexer eventIndexer() {
        return eventIndexer;
    }

    /** The lock table (tests check that clients released their locks). */
    HmsLocks locks() {
        return locks;
    }
}
