package io.treecat.core.service;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitLog;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.history.CommitPage;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.load.BulkLoader;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.Continuation;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.query.exec.QueryExecutor;
import io.treecat.core.query.exec.QueryOptions;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.query.exec.ScanListener;
import io.treecat.core.query.parser.QueryLimits;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.plan.QueryPlan;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.replication.GroupOperation;
import io.treecat.core.storage.rocksdb.RocksKvStore;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionConfig;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.txn.TransactionManager;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.core.version.ReadPins;
import io.treecat.core.version.VersionedTree;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.BufferedReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The one entry point adapters call: reads at a version, path queries, transactions, commits,
 * snapshots, clones and bulk loads over one versioned tree. Thread safe.
 */
public final class CatalogService implements AutoCloseable {
    private final VersionedTree tree;
    private final TransactionManager transactions;
    private final QueryExecutor executor;
    private final CatalogMetrics metrics;
    private final WriteValidator validator;
    private final QueryLimits queryLimits;

    public CatalogService(VersionedTree tree, TransactionConfig config, Clock clock) {
        this(tree, config, clock, CatalogMetrics.NONE);
    }

    public CatalogService(VersionedTree tree, TransactionConfig config, Clock clock, CatalogMetrics metrics) {
        this(tree, config, clock, metrics, WriteValidator.NONE);
    }

    /** @param validator checks every write set before it commits (transactions, single commits and bulk-load chunks) */
    public CatalogService(
            VersionedTree tree,
            TransactionConfig config,
            Clock clock,
            CatalogMetrics metrics,
            WriteValidator validator) {
        this(tree, config, clock, metrics, validator, QueryLimits.DEFAULTS);
    }

    /** @param queryLimits bound the text and nesting of every path query this service parses, its adapters' own too */
    public CatalogService(
            VersionedTree tree,
            TransactionConfig config,
            Clock clock,
            CatalogMetrics metrics,
            WriteValidator validator,
            QueryLimits queryLimits) {
        this.queryLimits = requireNonNull(queryLimits, "queryLimits is null");
        this.validator = requireNonNull(validator, "validator is null");
        this.tree = requireNonNull(tree, "tree is null");
        this.transactions = new TransactionManager(tree, config, clock);
        this.executor = new QueryExecutor(tree);
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    /** Opens (or creates) a catalog stored with RocksDB in {@code directory}, with default settings. */
    public static CatalogService open(Path directory) {
        return open(directory, RocksStoreOptions.defaults(), TransactionConfig.defaults());
    }

    public static CatalogService open(Path directory, RocksStoreOptions options, TransactionConfig config) {
        return new CatalogService(VersionedTree.open(RocksKvStore.open(directory, options)), config, Clock.systemUTC());
    }

    public TransactionManager transactions() {
        return transactions;
    }

    public VersionedTree tree() {
        return tree;
    }

    public long lastVid() {
        return tree.lastVid();
    }

    /** The vid a read point stands for, checked to be readable. */
    public long resolve(ReadPoint point) {
        requireNonNull(point, "read point is null");
        if (point instanceof ReadPoint.AtVid atVid) {
            return tree.checkReadable(atVid.vid());
        }
        if (point instanceof ReadPoint.AtSnapshot snapshot) {
            return tree.snapshotVid(snapshot.name());
        }
        if (point instanceof ReadPoint.AtTime atTime) {
            return vidAt(atTime.time());
        }
        return tree.lastVid();
    }

    /**
     * The newest vid committed at or before {@code time}, from the commit log.
     *
     * @throws CatalogException {@code TIME_BEFORE_HISTORY} naming the oldest recorded commit if the
     *     time is before it (or the log has no record yet)
     */
    public long vidAt(Instant time) {
        requireNonNull(time, "time is null");
        CommitLog log = tree.log();
        OptionalLong vid = log.vidAt(time.toEpochMilli());
        if (vid.isPresent()) {
            return vid.getAsLong();
        }
        Optional<CommitRecord> oldest = log.oldest();
        if (tree.horizon() > 0 && oldest.isPresent() && oldest.get().vid() >= tree.horizon()) {
            // The log was trimmed to the horizon: what was current at this time has been collected.
            throw new CatalogException(
                            ErrorCode.VERSION_EXPIRED,
                            "Time " + time + " is before the oldest readable version " + tree.horizon()
                                    + ", committed at " + oldest.get().commitTime())
                    .with("time", time)
                    .with("oldestVid", oldest.get().vid())
                    .with("oldestTime", oldest.get().commitTime());
        }
        if (oldest.isEmpty()) {
            throw new CatalogException(
                            ErrorCode.TIME_BEFORE_HISTORY,
                            "No commit is recorded yet, so no version can be found by time " + time)
                    .with("time", time);
        }
        throw new CatalogException(
                        ErrorCode.TIME_BEFORE_HISTORY,
                        "Time " + time + " is before the oldest recorded commit, at "
                                + oldest.get().commitTime() + " (vid "
                                + oldest.get().vid() + ")")
                .with("time", time)
                .with("oldestTime", oldest.get().commitTime())
                .with("oldestVid", oldest.get().vid());
    }

    /** The commit log's record of a committed vid, if it has one (stores older than the log have none). */
    public Optional<CommitRecord> commitRecord(long vid) {
        return tree.log().find(tree.checkReadable(vid));
    }

    /**
     * A page of commit history: {@code since} and {@code until} resolve to vids (a time to the first
     * vid committed at or after it, and to the last at or before it), then the log is read from the
     * page token on.
     */
    public HistoryPage listCommits(HistoryRequest request) {
        requireNonNull(request, "request is null");
        long from = request.since() == null ? 1 : firstVidFrom(request.since());
        long to = request.until() == null ? tree.lastVid() : lastVidUntil(request.until());
        if (request.token().isPresent()) {
            long next = decodeHistoryToken(request.token().get());
            if (request.newestFirst()) {
                to = Math.min(to, next);
            } else {
                from = Math.max(from, next);
            }
        }
        if (from > to) {
            return new HistoryPage(List.of(), Optional.empty());
        }
        CommitPage page =
                tree.log().read(new CommitQuery(from, to, request.path(), request.limit(), request.newestFirst()));
        return new HistoryPage(
                page.records(),
                page.nextVid().isPresent()
                        ? Optional.of(HISTORY_TOKEN_PREFIX + page.nextVid().getAsLong())
                        : Optional.empty());
    }

    private static final String HISTORY_TOKEN_PREFIX = "h1.";

    private static long decodeHistoryToken(String token) {
        if (token.startsWith(HISTORY_TOKEN_PREFIX) && token.length() <= 32) {
            try {
                long vid = Long.parseLong(token.substring(HISTORY_TOKEN_PREFIX.length()));
                if (vid >= 0) {
                    return vid;
                }
            } catch (NumberFormatException e) {
                // Reported below.
            }
        }
        throw new CatalogException(
                        ErrorCode.INVALID_CONTINUATION, "The page token was not returned by a history listing")
                .with("pageToken", token.length() > 64 ? token.substring(0, 64) + "…" : token);
    }

    /** The first vid a history bound lets in: the vid itself, or the first committed at or after the time. */
    private long firstVidFrom(ReadPoint since) {
        if (since instanceof ReadPoint.AtVid atVid) {
            return atVid.vid();
        }
        Instant time = ((ReadPoint.AtTime) since).time();
        OptionalLong before = tree.log().vidAt(time.toEpochMilli() - 1);
        return before.isPresent() ? before.getAsLong() + 1 : 1;
    }

    /** The last vid a history bound lets in; 0 (nothing) for a time before the oldest record. */
    private long lastVidUntil(ReadPoint until) {
        if (until instanceof ReadPoint.AtVid atVid) {
            return atVid.vid();
        }
        return tree.log()
                .vidAt(((ReadPoint.AtTime) until).time().toEpochMilli())
                .orElse(0);
    }

    /** A page of commit history; {@code query.toVid()} is clamped to the newest committed vid. */
    public CommitPage listCommits(CommitQuery query) {
        requireNonNull(query, "query is null");
        return tree.log().read(query);
    }

    public Optional<CatalogObject> get(ObjectPath path, ReadPoint point) {
        return tree.read(path, resolve(point));
    }

    /** The limits every query's text is parsed within; adapters that build queries keep theirs inside them. */
    public QueryLimits queryLimits() {
        return queryLimits;
    }

    public QueryPlan plan(String query) {
        return QueryPlanner.plan(QueryParser.parse(query, queryLimits));
    }

    public String explain(String query) {
        return plan(query).explain();
    }

    /** Opens a streaming cursor outside any transaction; the caller closes it. */
    public QueryCursor openQuery(QueryRequest request) {
        return openQuery(request, ScanListener.NONE);
    }

    /**
     * Opens a streaming cursor inside a transaction: it reads at the transaction's read vid, and a
     * read-write transaction records its scans for validation at commit.
     */
    public QueryCursor openQuery(TransactionId id, QueryRequest request) {
        Transaction txn = transactions.find(id);
        if (!(request.readPoint() instanceof ReadPoint.Latest)) {
            throw new CatalogException(
                            ErrorCode.INVALID_QUERY_OPTION,
                            "A query in a transaction reads at the transaction's version; do not give another")
                    .with("transaction", id);
        }
        return openQuery(request.at(ReadPoint.vid(txn.readVid())), transactions.scanListener(txn));
    }

    public QueryPage query(TransactionId id, QueryRequest request) {
        try (QueryCursor cursor = openQuery(id, request)) {
            return cursor.page(request.limit());
        }
    }

    private QueryCursor openQuery(QueryRequest request, ScanListener listener) {
        try {
            QueryPlan plan = plan(request.query());
            long vid;
            Optional<Continuation> after = request.pageToken().map(Continuation::decode);
            // A later page reads at the vid of the first: the newest (or the newest at a time) may have moved.
            if (after.isPresent()
                    && (request.readPoint() instanceof ReadPoint.Latest
                            || request.readPoint() instanceof ReadPoint.AtTime)) {
                vid = tree.checkReadable(after.get().vid());
            } else {
                vid = resolve(request.readPoint());
            }
            QueryOptions options = new QueryOptions(vid, request.results(), request.projection(), after, listener);
            // An open cursor keeps the collector from passing its vid until it is closed.
            ReadPins.Pin pin = tree.pin(vid);
            try {
                return new MeasuredCursor(executor.execute(plan, options), metrics, pin);
            } catch (RuntimeException e) {
                pin.close();
                throw e;
            }
        } catch (CatalogException e) {
            metrics.queryFailed(e.code());
            throw e;
        }
    }

    /** One page of a query's results, with the token for the next page if there is one. */
    public QueryPage query(QueryRequest request) {
        try (QueryCursor cursor = openQuery(request)) {
            return cursor.page(request.limit());
        }
    }

    /** Commits writes on their own, outside any transaction; durable when this returns. */
    public CommitResult commit(WriteSet writes) {
        validate(writes);
        return measureCommit(() -> transactions.commit(writes));
    }

    private void validate(WriteSet writes) {
        validator.validate(writes, path -> tree.read(path, lastVid()));
    }

    private CommitResult measureCommit(Supplier<CommitResult> commit) {
        long start = System.nanoTime();
        try {
            CommitResult result = commit.get();
            metrics.commitSucceeded(System.nanoTime() - start, result.changes().size());
            return result;
        } catch (CatalogException e) {
            metrics.commitFailed(e.code(), System.nanoTime() - start);
            throw e;
        }
    }

    public Transaction begin(TransactionMode mode, ReadPoint point) {
        OptionalLong vid = point instanceof ReadPoint.Latest ? OptionalLong.empty() : OptionalLong.of(resolve(point));
        return transactions.begin(mode, vid);
    }

    /** Reads one object in a transaction; a read-write transaction records the read for validation. */
    public Optional<CatalogObject> get(TransactionId id, ObjectPath path) {
        Transaction txn = transactions.find(id);
        return tree.read(path, transactions.recordRead(txn, path));
    }

    public CommitResult commit(TransactionId id, WriteSet writes) {
        try {
            validate(writes);
        } catch (CatalogException e) {
            // A refused write set ends its transaction, as a failed commit does.
            try {
                transactions.abort(id);
            } catch (CatalogException ignored) {
                // Already gone: the refusal is what the caller needs to hear.
            }
            throw e;
        }
        return measureCommit(() -> transactions.commit(id, writes));
    }

    public void abort(TransactionId id) {
        transactions.abort(id);
    }

    /** Imports JSON lines in chunks, each chunk one durable commit. */
    public BulkLoader.LoadResult bulkLoad(BufferedReader input, int chunkSize, BulkLoader.Progress progress) {
        return bulkLoad(input, chunkSize, JsonLimits.DEFAULTS, progress);
    }

    /** Imports JSON lines in chunks, each line within {@code limits}. */
    public BulkLoader.LoadResult bulkLoad(
            BufferedReader input, int chunkSize, JsonLimits limits, BulkLoader.Progress progress) {
        return new BulkLoader(this::commit, chunkSize, limits).load(input, progress);
    }

    /**
     * Imports JSON lines in chunks, each chunk's commit recorded in the commit log as by {@code principal} (null:
     * none, as without authentication).
     */
    public BulkLoader.LoadResult bulkLoad(
            BufferedReader input, int chunkSize, JsonLimits limits, String principal, BulkLoader.Progress progress) {
        if (principal == null) {
            return bulkLoad(input, chunkSize, limits, progress);
        }
        return new BulkLoader(
                        writes -> commit(writes.withOrigin(writes.origin().withPrincipal(principal))),
                        chunkSize,
                        limits)
                .load(input, progress);
    }

    /**
     * Names the version {@code point} reads. In a replicated group the name is made on every node through
     * the group's log, each node checking it alike, and is readable here when this returns.
     */
    public NamedSnapshot createSnapshot(String name, ReadPoint point) {
        long vid = resolve(point);
        if (tree.replicated()) {
            VersionedTree.checkSnapshotName(name);
            transactions.applyInGroup(GroupOperation.createSnapshot(name, vid));
            return new NamedSnapshot(name, vid);
        }
        return tree.createSnapshot(name, vid);
    }

    public List<NamedSnapshot> listSnapshots() {
        return tree.listSnapshots();
    }

    public void dropSnapshot(String name) {
        if (tree.replicated()) {
            VersionedTree.checkSnapshotName(name);
            transactions.applyInGroup(GroupOperation.dropSnapshot(name));
            return;
        }
        tree.dropSnapshot(name);
    }

    /** Copies the subtree at {@code source} as of {@code point} to {@code target}, sharing leaves. */
    public CommitResult clone(ObjectPath source, ObjectPath target, ReadPoint point) {
        return commit(WriteSet.of(new WriteOp.Clone(source, target, resolve(point))));
    }

    /** {@link #clone(ObjectPath, ObjectPath, ReadPoint)}, recorded in the commit log as coming from {@code origin}. */
    public CommitResult clone(ObjectPath source, ObjectPath target, ReadPoint point, CommitOrigin origin) {
        return commit(
                WriteSet.of(new WriteOp.Clone(source, target, resolve(point))).withOrigin(origin));
    }

    /** Finishes commits in flight, then closes the store. */
    @Override
    public void close() {
        transactions.close();
        tree.close();
    }
}
