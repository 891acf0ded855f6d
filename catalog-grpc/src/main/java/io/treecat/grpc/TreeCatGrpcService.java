package io.treecat.grpc;

import static java.util.Objects.requireNonNull;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.feed.ChangeFeed;
import io.treecat.core.feed.ChangeFilter;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.HistoryPage;
import io.treecat.core.service.HistoryRequest;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.Transaction;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.v1.AbortRequest;
import io.treecat.grpc.v1.AbortResponse;
import io.treecat.grpc.v1.BulkLoadChunk;
import io.treecat.grpc.v1.BulkLoadResponse;
import io.treecat.grpc.v1.CloneRequest;
import io.treecat.grpc.v1.CloneResponse;
import io.treecat.grpc.v1.CommitRequest;
import io.treecat.grpc.v1.CommitResponse;
import io.treecat.grpc.v1.DropSnapshotRequest;
import io.treecat.grpc.v1.DropSnapshotResponse;
import io.treecat.grpc.v1.ExecuteQueryRequest;
import io.treecat.grpc.v1.ExplainRequest;
import io.treecat.grpc.v1.ExplainResponse;
import io.treecat.grpc.v1.FeedEvent;
import io.treecat.grpc.v1.GetObjectRequest;
import io.treecat.grpc.v1.GetObjectResponse;
import io.treecat.grpc.v1.ListCommitsRequest;
import io.treecat.grpc.v1.ListCommitsResponse;
import io.treecat.grpc.v1.ListSnapshotsRequest;
import io.treecat.grpc.v1.ListSnapshotsResponse;
import io.treecat.grpc.v1.QueryBatch;
import io.treecat.grpc.v1.SnapshotRequest;
import io.treecat.grpc.v1.SnapshotResponse;
import io.treecat.grpc.v1.StartTransactionRequest;
import io.treecat.grpc.v1.StartTransactionResponse;
import io.treecat.grpc.v1.SubscribeRequest;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The treecat.v1 service: each RPC reads its request through {@link WireFormat}, makes one
 * {@link CatalogService} call and writes the answer back. It holds no state of its own; sessions
 * live in core's transaction manager, so any call may name a transaction another call began.
 * Failures end the call through {@link GrpcErrors} and never escape to the transport.
 */
public final class TreeCatGrpcService extends TreeCatGrpc.TreeCatImplBase {
    private final CatalogService catalog;
    private final ChangeFeed feed;
    private final int maxBatchSize;
    /** The open Subscribe streams, ended at shutdown: they would otherwise hold it for the whole grace period. */
    private final Set<FeedStreamer> streams = ConcurrentHashMap.newKeySet();

    /**
     * @param maxBatchSize the most objects in one {@code QueryBatch}, and the size used when the
     *     request does not ask for one
     */
    public TreeCatGrpcService(CatalogService catalog, ChangeFeed feed, int maxBatchSize) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.feed = requireNonNull(feed, "feed is null");
        if (maxBatchSize <= 0) {
            throw new IllegalArgumentException("maxBatchSize must be positive");
        }
        this.maxBatchSize = maxBatchSize;
    }

    /**
     * {@code base}, by the call's authenticated principal ({@link GrpcAuthentication}); without authentication the
     * commit names none, as the REST port's anonymous commits do.
     */
    private static CommitOrigin origin(CommitOrigin base) {
        return GrpcAuthentication.currentPrincipal().map(base::withPrincipal).orElse(base);
    }

    @Override
    public void startTransaction(StartTransactionRequest request, StreamObserver<StartTransactionResponse> response) {
        unary(response, () -> {
            Transaction txn = catalog.begin(
                    WireFormat.mode(request.getMode(), "mode"),
                    WireFormat.readPoint(request.getReadPoint(), "read_point"));
            return StartTransactionResponse.newBuilder()
                    .setTransactionId(txn.id().toString())
                    .setReadVid(txn.readVid())
                    .build();
        });
    }

    @Override
    public void executeQuery(ExecuteQueryRequest request, StreamObserver<QueryBatch> response) {
        ServerCallStreamObserver<QueryBatch> call = (ServerCallStreamObserver<QueryBatch>) response;
        QueryStreamer streamer;
        try {
            if (request.getQuery().isEmpty()) {
                throw new InvalidRequestException("query", "is required");
            }
            if (request.getLimit() < 0) {
                throw new InvalidRequestException("limit", "must not be negative (0 means no limit)");
            }
            if (request.getBatchSize() < 0) {
                throw new InvalidRequestException("batch_size", "must not be negative (0 means the server's default)");
            }
            // The cursor streams; core's page limit does not apply to it, the streamer counts instead.
            QueryRequest query = new QueryRequest(
                    request.getQuery(),
                    WireFormat.readPoint(request.getReadPoint(), "read_point"),
                    WireFormat.results(request.getResults(), "results"),
                    request.getProjectionList(),
                    QueryRequest.DEFAULT_LIMIT,
                    request.getPageToken().isEmpty() ? Optional.empty() : Optional.of(request.getPageToken()));
            Optional<TransactionId> txn = WireFormat.transaction(request.getTransactionId());
            QueryCursor opened = txn.isPresent() ? catalog.openQuery(txn.get(), query) : catalog.openQuery(query);
            QueryCursor cursor;
            try {
                // Only the rows the caller may see (docs/security.md, "Native path queries").
                cursor = GrpcAuthentication.currentRows()
                        .at(opened.vid())
                        .map(opened::filtered)
                        .orElse(opened);
            } catch (RuntimeException | Error e) {
                opened.close();
                throw e;
            }
            int batchSize = request.getBatchSize() == 0 ? maxBatchSize : Math.min(request.getBatchSize(), maxBatchSize);
            streamer = new QueryStreamer(cursor, call, request.getLimit(), batchSize);
        } catch (RuntimeException | Error e) {
            response.onError(GrpcErrors.toStatus(e));
            return;
        }
        streamer.start();
    }

    @Override
    public void getObject(GetObjectRequest request, StreamObserver<GetObjectResponse> response) {
        unary(
                response,
                () -> {
                    ObjectPath path = WireFormat.path(request.getPath(), "path");
                    ReadPoint point = WireFormat.readPoint(request.getReadPoint(), "read_point");
                    Optional<TransactionId> txn = WireFormat.transaction(request.getTransactionId());
                    if (txn.isPresent() && !(point instanceof ReadPoint.Latest)) {
                        throw new InvalidRequestException(
                                "read_point", "must be unset in a transaction, which reads at its own version");
                    }
                    Optional<CatalogObject> found =
                            txn.isPresent() ? catalog.get(txn.get(), path) : catalog.get(path, point);
                    // An object the caller may not see is answered as a missing one.
                    return found.filter(object -> GrpcAuthentication.currentRows()
                            .at(catalog.lastVid())
                            .map(rows -> rows.test(object))
                            .orElse(true));
                },
                found -> found.map(object -> GetObjectResponse.newBuilder()
                                .setObject(WireFormat.object(object))
                                .build())
                        .orElseThrow(() -> new CatalogException(
                                        ErrorCode.OBJECT_NOT_FOUND, "Object not found: " + request.getPath())
                                .with("path", request.getPath())));
    }

    @Override
    public void commit(CommitRequest request, StreamObserver<CommitResponse> response) {
        unary(response, () -> {
            Optional<TransactionId> txn = WireFormat.transaction(request.getTransactionId());
            Optional<WriteSet> writes = WireFormat.writeSet(request.getWritesList(), catalog::resolve)
                    .map(set -> set.withOrigin(origin(set.origin())));
            CommitResult result;
            if (txn.isPresent()) {
                result = catalog.commit(txn.get(), writes.orElse(null));
            } else {
                result = catalog.commit(writes.orElseThrow(
                        () -> new InvalidRequestException("writes", "must not be empty without a transaction")));
            }
            return CommitResponse.newBuilder()
                    .setVid(result.vid())
                    .setChangeCount(result.changes().size())
                    .build();
        });
    }

    @Override
    public void abort(AbortRequest request, StreamObserver<AbortResponse> response) {
        unary(response, () -> {
            catalog.abort(WireFormat.transaction(request.getTransactionId())
                    .orElseThrow(() -> new InvalidRequestException("transaction_id", "is required")));
            return AbortResponse.getDefaultInstance();
        });
    }

    @Override
    public void snapshot(SnapshotRequest request, StreamObserver<SnapshotResponse> response) {
        unary(
                response,
                () -> SnapshotResponse.newBuilder()
                        .setSnapshot(WireFormat.snapshot(catalog.createSnapshot(
                                required(request.getName(), "name"),
                                WireFormat.readPoint(request.getReadPoint(), "read_point"))))
                        .build());
    }

    @Override
    public void listSnapshots(ListSnapshotsRequest request, StreamObserver<ListSnapshotsResponse> response) {
        unary(response, () -> {
            ListSnapshotsResponse.Builder list = ListSnapshotsResponse.newBuilder();
            catalog.listSnapshots().forEach(snapshot -> list.addSnapshots(WireFormat.snapshot(snapshot)));
            return list.build();
        });
    }

    @Override
    public void dropSnapshot(DropSnapshotRequest request, StreamObserver<DropSnapshotResponse> response) {
        unary(response, () -> {
            catalog.dropSnapshot(required(request.getName(), "name"));
            return DropSnapshotResponse.getDefaultInstance();
        });
    }

    @Override
    public void clone(CloneRequest request, StreamObserver<CloneResponse> response) {
        unary(response, () -> {
            CommitResult result = catalog.clone(
                    WireFormat.path(request.getSource(), "source"),
                    WireFormat.path(request.getTarget(), "target"),
                    WireFormat.readPoint(request.getReadPoint(), "read_point"),
                    origin(CommitOrigin.NATIVE_CLONE));
            return CloneResponse.newBuilder()
                    .setVid(result.vid())
                    .setChangeCount(result.changes().size())
                    .build();
        });
    }

    @Override
    public void explain(ExplainRequest request, StreamObserver<ExplainResponse> response) {
        unary(
                response,
                () -> ExplainResponse.newBuilder()
                        .setPlan(catalog.explain(required(request.getQuery(), "query")))
                        .build());
    }

    @Override
    public StreamObserver<BulkLoadChunk> bulkLoad(StreamObserver<BulkLoadResponse> response) {
        return new BulkLoadReceiver(catalog, response, origin(CommitOrigin.LOAD_CHUNK));
    }

    @Override
    public void listCommits(ListCommitsRequest request, StreamObserver<ListCommitsResponse> response) {
        unary(response, () -> {
            if (request.getLimit() < 0) {
                throw new InvalidRequestException("limit", "must not be negative (0 means 100)");
            }
            HistoryPage page = catalog.listCommits(new HistoryRequest(
                    request.getPath().isEmpty() ? ObjectPath.ROOT : WireFormat.path(request.getPath(), "path"),
                    WireFormat.bound(request.getSince(), "since"),
                    WireFormat.bound(request.getUntil(), "until"),
                    request.getLimit() == 0 ? HistoryRequest.DEFAULT_LIMIT : request.getLimit(),
                    request.getNewestFirst(),
                    request.getPageToken().isEmpty() ? null : request.getPageToken()));
            ListCommitsResponse.Builder list = ListCommitsResponse.newBuilder();
            page.commits().forEach(record -> list.addCommits(WireFormat.commit(record)));
            page.nextPageToken().ifPresent(list::setNextPageToken);
            return list.build();
        });
    }

    @Override
    public void subscribe(SubscribeRequest request, StreamObserver<FeedEvent> response) {
        ServerCallStreamObserver<FeedEvent> call = (ServerCallStreamObserver<FeedEvent>) response;
        FeedStreamer streamer = new FeedStreamer(call);
        try {
            ChangeFilter filter = WireFormat.feedFilter(request);
            long position = feed.startPosition(
                    request.hasAfterVid() ? OptionalLong.of(request.getAfterVid()) : OptionalLong.empty());
            streams.add(streamer);
            streamer.start(feed, filter, position, () -> streams.remove(streamer));
        } catch (RuntimeException | Error e) {
            streams.remove(streamer);
            response.onError(GrpcErrors.toStatus(e));
        }
    }

    /** Ends every open Subscribe stream with UNAVAILABLE and the vid to resume after. */
    void endSubscriptions() {
        streams.forEach(FeedStreamer::endForShutdown);
    }

    /** The open Subscribe streams: for tests of backpressure and of the limit. */
    Set<FeedStreamer> streams() {
        return Set.copyOf(streams);
    }

    private static String required(String value, String field) {
        if (value.isEmpty()) {
            throw new InvalidRequestException(field, "is required");
        }
        return value;
    }

    private static <T> void unary(StreamObserver<T> response, Supplier<T> call) {
        unary(response, call, result -> result);
    }

    private static <R, T> void unary(
            StreamObserver<T> response, Supplier<R> call, java.util.function.Function<R, T> reply) {
        T answer;
        try {
            answer = reply.apply(call.get());
        } catch (RuntimeException | Error e) {
            response.onError(GrpcErrors.toStatus(e));
            return;
        }
        response.onNext(answer);
        response.onCompleted();
    }
}
