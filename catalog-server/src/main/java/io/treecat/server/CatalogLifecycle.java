package io.treecat.server;

import static java.util.Objects.requireNonNull;

import io.dropwizard.lifecycle.Managed;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.feed.FeedPins;
import io.treecat.core.query.parser.QueryLimits;
import io.treecat.core.service.CatalogMetrics;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.version.GarbageCollector;
import io.treecat.core.version.RetentionConfig;
import io.treecat.core.version.VersionedTree;
import io.treecat.lakehouse.model.LakeObjectValidator;
import io.treecat.replication.ReplicaNode;
import io.treecat.server.config.ReplicationConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the catalog for the life of the server. Jetty starts managed objects before it opens its
 * connectors and stops them after it has stopped accepting and drained in-flight requests (for up
 * to {@code server.shutdownGracePeriod}), so RocksDB opens before the first request and closes
 * after the last one: every acknowledged commit is durable and the store closes cleanly.
 */
final class CatalogLifecycle implements Managed, Supplier<CatalogService> {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogLifecycle.class);

    private final Path dataDir;
    private final Path warehouse;
    private final RocksStoreOptions storeOptions;
    private final TransactionConfig transactionConfig;
    private final CatalogMetrics metrics;
    private final LakeObjectValidator validator;
    private final QueryLimits queryLimits;
    private final int maxSubscribers;
    private final RetentionConfig retention;
    private final ReplicationConfig replication;
    private volatile CatalogService catalog;
    /** This node of the group, when the server is replicated; null on a single node. */
    private volatile ReplicaNode replica;

    private volatile ChangeFeed feed;
    private volatile GarbageCollector collector;

    CatalogLifecycle(
            Path dataDir,
            Path warehouse,
            RocksStoreOptions storeOptions,
            TransactionConfig transactionConfig,
            CatalogMetrics metrics,
            LakeObjectValidator validator,
            QueryLimits queryLimits,
            int maxSubscribers,
            RetentionConfig retention,
            ReplicationConfig replication) {
        this.maxSubscribers = maxSubscribers;
        this.dataDir = requireNonNull(dataDir, "dataDir is null");
        this.warehouse = requireNonNull(warehouse, "warehouse is null");
        this.storeOptions = requireNonNull(storeOptions, "storeOptions is null");
        this.transactionConfig = requireNonNull(transactionConfig, "transactionConfig is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.validator = requireNonNull(validator, "validator is null");
        this.queryLimits = requireNonNull(queryLimits, "queryLimits is null");
        this.retention = requireNonNull(retention, "retention is null");
        this.replication = requireNonNull(replication, "replication is null");
    }

    @Override
    public void start() throws Exception {
        Files.createDirectories(dataDir);
        Files.createDirectories(warehouse);
        // Every commit, native ones included, passes the lake model's codecs and its rules on names and locations: no
        // interface can leave a table another cannot read, or place an object where the lake would not.
        catalog = new CatalogService(
                VersionedTree.open(RocksKvStore.open(dataDir, storeOptions)),
                transactionConfig,
                Clock.systemUTC(),
                metrics,
                validator,
                queryLimits);
        if (replication.enabled()) {
            // From here on the tree changes only through the group: the leader sequences, every node installs.
            Path logDir = replication.logDir(dataDir);
            replica = ReplicaNode.start(
                    catalog.tree(), replication.nodeId(), replication.peers(), logDir, replication.toSettings());
            catalog.transactions().replicateThrough(replica, replication.commitTimeout());
            // What the server writes as it starts (the HMS default database) needs a leader to take it.
            replica.awaitLeader(replication.startupTimeout());
            LOG.info(
                    "Node {} of a replicated group of {} (log at {})",
                    replication.nodeId(),
                    replication.peers().size(),
                    logDir);
        }
        // Each subscriber pins the oldest commit-log record it still needs, so retention keeps it.
        feed = new ChangeFeed(catalog.tree(), maxSubscribers, FeedPins.of(catalog.tree()));
        // Its passes start later (collection()), once every listener that pins what it still needs has opened.
        collector = new GarbageCollector(catalog.tree(), retention, Clock.systemUTC());
        if (replica != null) {
            // The group's nodes collect in step, as far as the leader's proposals have been agreed.
            collector.agreeThrough(replica::proposeHorizon);
        }
        LOG.info(
                "Opened the catalog at {} (newest version {}, oldest readable {}, protocol {})",
                dataDir.toAbsolutePath(),
                catalog.lastVid(),
                catalog.tree().horizon(),
                transactionConfig.protocol());
    }

    @Override
    public void stop() {
        ChangeFeed openFeed = feed;
        feed = null;
        if (openFeed != null) {
            openFeed.close();
        }
        GarbageCollector running = collector;
        collector = null;
        if (running != null) {
            // Before the store closes: a pass in progress stops at its next batch.
            running.close();
        }
        ReplicaNode member = replica;
        replica = null;
        if (member != null) {
            // Before the store closes: no entry is installed into a closed store.
            member.close();
        }
        CatalogService open = catalog;
        catalog = null;
        if (open != null) {
            open.close();
            LOG.info("Closed the catalog at {}", dataDir.toAbsolutePath());
        }
    }

    /** This node of the group, if the server is replicated and open. */
    Optional<ReplicaNode> replica() {
        return Optional.ofNullable(replica);
    }

    /** The change feed over the open catalog; {@code STORE_CLOSED} before start and after stop. */
    ChangeFeed feed() {
        ChangeFeed open = feed;
        if (open == null) {
            throw new CatalogException(ErrorCode.STORE_CLOSED, "The catalog is not open");
        }
        return open;
    }

    /** The garbage collector of the open catalog; {@code STORE_CLOSED} before start and after stop. */
    GarbageCollector collector() {
        GarbageCollector running = collector;
        if (running == null) {
            throw new CatalogException(ErrorCode.STORE_CLOSED, "The catalog is not open");
        }
        return running;
    }

    /**
     * Starts the collector's background passes: managed after the listeners, so that what they pin at start (the HMS
     * notification log pins the commits its index has not saved, docs/hms-thrift.md "Event ids") is pinned before
     * the first pass. Stopping is the catalog's.
     */
    Managed collection() {
        return new Managed() {
            @Override
            public void start() {
                collector().start();
            }

            @Override
            public void stop() {
                // The catalog's stop closes the collector.
            }
        };
    }

    /** The open catalog; {@code STORE_CLOSED} before start and after stop. */
    @Override
    public CatalogService get() {
        CatalogService open = catalog;
        if (open == null) {
            throw new CatalogException(ErrorCode.STORE_CLOSED, "The catalog is not open");
        }
        return open;
    }
}
