package io.treecat.grpc.client;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryPage;
import io.treecat.core.service.HistoryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.MinVidInterceptor;
import io.treecat.grpc.WireFormat;
import io.treecat.grpc.v1.AbortRequest;
import io.treecat.grpc.v1.BulkLoadChunk;
import io.treecat.grpc.v1.BulkLoadResponse;
import io.treecat.grpc.v1.CloneRequest;
import io.treecat.grpc.v1.CloneResponse;
import io.treecat.grpc.v1.CommitRequest;
import io.treecat.grpc.v1.CommitResponse;
import io.treecat.grpc.v1.DropSnapshotRequest;
import io.treecat.grpc.v1.ExecuteQueryRequest;
import io.treecat.grpc.v1.ExplainRequest;
import io.treecat.grpc.v1.GetObjectRequest;
import io.treecat.grpc.v1.ListCommitsRequest;
import io.treecat.grpc.v1.ListCommitsResponse;
import io.treecat.grpc.v1.ListSnapshotsRequest;
import io.treecat.grpc.v1.QueryBatch;
import io.treecat.grpc.v1.SnapshotRequest;
import io.treecat.grpc.v1.StartTransactionRequest;
import io.treecat.grpc.v1.StartTransactionResponse;
import io.treecat.grpc.v1.TreeCatGrpc;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The Java client of TreeCat's native gRPC API. Thread safe; one client per server is enough.
 * Every failure is a {@link TreeCatClientException}.
 *
 * <pre>{@code
 * try (TreeCatClient client = TreeCatClient.connect("localhost:50051")) {
 *   try (QueryResults files = client.query("/[obj_id='retail']/[obj_id='sales']/*")) {
 *     files.forEachRemaining(file -> System.out.println(file.path()));
 *   }
 *   client.runInTransaction(txn -> WriteSet.of(new WriteOp.Merge(path, delta)));
 * }
 * }</pre>
 */
public final class TreeCatClient implements AutoCloseable {
    /** Query batches are at most about 1 MiB; a single huge object may still exceed gRPC's 4 MiB default. */
    private static final int MAX_INBOUND_MESSAGE_BYTES = 64 << 20;
    /** Error details travel in trailers; leave room above the 8 KiB default. */
    private static final int MAX_INBOUND_METADATA_BYTES = 64 << 10;
    /** JSON-lines text per BulkLoad message. */
    private static final int LOAD_MESSAGE_CHARS = 256 << 10;

    private final ManagedChannel channel;
    private final Optional<Duration> callTimeout;
    private final Optional<CallCredentials> credentials;
    /** The {@code x-treecat-min-vid} every call of this view carries, if any. */
    private final OptionalLong minVid;
    /** The newest {@code x-treecat-vid} any answer named, shared by the views of one channel; -1 before any. */
    private final AtomicLong newestVid;

    private final ClientInterceptor vids = new VidMetadata();

    /** Takes over {@code channel}: closing the client shuts it down. */
    public TreeCatClient(ManagedChannel channel) {
        this(channel, Optional.empty(), Optional.empty(), OptionalLong.empty(), new AtomicLong(-1));
    }

    private TreeCatClient(
            ManagedChannel channel,
            Optional<Duration> callTimeout,
            Optional<CallCredentials> credentials,
            OptionalLong minVid,
            AtomicLong newestVid) {
        this.channel = requireNonNull(channel, "channel is null");
        this.callTimeout = requireNonNull(callTimeout, "callTimeout is null");
        this.credentials = requireNonNull(credentials, "credentials is null");
        this.minVid = requireNonNull(minVid, "minVid is null");
        this.newestVid = requireNonNull(newestVid, "newestVid is null");
    }

    /** Connects in plaintext to {@code target}, e.g. {@code "localhost:50051"}. */
    public static TreeCatClient connect(String target) {
        requireNonNull(target, "target is null");
        return new TreeCatClient(ManagedChannelBuilder.forTarget(target)
                .usePlaintext()
                .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
                .maxInboundMetadataSize(MAX_INBOUND_METADATA_BYTES)
                .build());
    }

    /**
     * Connects to {@code target} with these channel credentials, e.g. {@code TlsChannelCredentials} trusting the
     * server's CA ({@code TlsChannelCredentials.newBuilder().trustManager(caPemFile).build()}).
     */
    public static TreeCatClient connect(String target, ChannelCredentials credentials) {
        requireNonNull(target, "target is null");
        requireNonNull(credentials, "credentials is null");
        return new TreeCatClient(Grpc.newChannelBuilder(target, credentials)
                .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
                .maxInboundMetadataSize(MAX_INBOUND_METADATA_BYTES)
                .build());
    }

    /**
     * A view of this client whose calls each get {@code timeout} as deadline (a query stream: for
     * the whole stream). It shares the channel: close only one of them.
     */
    public TreeCatClient withDeadline(Duration timeout) {
        return new TreeCatClient(
                channel, Optional.of(requireNonNull(timeout, "timeout is null")), credentials, minVid, newestVid);
    }

    /**
     * A view of this client whose calls each carry {@code authorization: Bearer <token>}, for a server with {@code
     * auth.enabled} (a token from its {@code /v1/oauth/tokens}). It shares the channel: close only one of them. The
     * token is sent as given and never logged; serve the port over TLS before sending tokens over a network.
     */
    public TreeCatClient withBearerToken(String token) {
        requireNonNull(token, "token is null");
        if (token.isBlank() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new IllegalArgumentException("The bearer token must be printable ASCII without spaces");
        }
        return new TreeCatClient(channel, callTimeout, Optional.of(new BearerCredentials(token)), minVid, newestVid);
    }

    /**
     * A view of this client whose calls each carry {@code x-treecat-min-vid: vid}: the server starts a call only once
     * it has published {@code vid}, e.g. a commit's {@link CommitSummary#vid()} made through another node of a
     * replicated group (read-your-writes, docs/replication.md). A node that does not publish it within its {@code
     * replication.min-vid-wait} fails the call UNAVAILABLE, error code {@code VID_NOT_REACHED}. It shares the channel:
     * close only one of them.
     */
    public TreeCatClient withMinVid(long vid) {
        if (vid < 0) {
            throw new IllegalArgumentException("vid must not be negative: " + vid);
        }
        return new TreeCatClient(channel, callTimeout, credentials, OptionalLong.of(vid), newestVid);
    }

    /**
     * The newest vid a server named in {@code x-treecat-vid} on any answer to this client or a view of it (each
     * answer names the newest vid its node had published), or empty before the first answer. Pass it to {@link
     * #withMinVid(long)} of a client of another node to read there nothing older than what was read here.
     */
    public OptionalLong newestVidSeen() {
        long vid = newestVid.get();
        return vid < 0 ? OptionalLong.empty() : OptionalLong.of(vid);
    }

    /** Sends this view's min vid, and keeps the newest vid the answers name. */
    private final class VidMetadata implements ClientInterceptor {
        @Override
        public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
                MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<RespT> listener, Metadata headers) {
                    minVid.ifPresent(vid -> headers.put(MinVidInterceptor.MIN_VID, Long.toString(vid)));
                    super.start(
                            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                                @Override
                                public void onHeaders(Metadata answer) {
                                    seen(answer);
                                    super.onHeaders(answer);
                                }

                                @Override
                                public void onClose(Status status, Metadata trailers) {
                                    seen(trailers);
                                    super.onClose(status, trailers);
                                }
                            },
                            headers);
                }
            };
        }

        private void seen(Metadata metadata) {
            String vid = metadata.get(MinVidInterceptor.VID);
            if (vid == null) {
                return;
            }
            try {
                long named = Long.parseLong(vid);
                newestVid.accumulateAndGet(named, Math::max);
            } catch (NumberFormatException e) {
                // Not a TreeCat server's answer: nothing to keep.
            }
        }
    }

    /** {@code authorization: Bearer <token>} on every call. */
    private static final class BearerCredentials extends CallCredentials {
        private static final Metadata.Key<String> AUTHORIZATION =
                Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

        private final String token;

        BearerCredentials(String token) {
            this.token = token;
        }

        @Override
        public void applyRequestMetadata(RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
            Metadata headers = new Metadata();
            headers.put(AUTHORIZATION, "Bearer " + token);
            applier.apply(headers);
        }

        @Override
        public String toString() {
            return "BearerCredentials[token=<hidden>]";
        }
    }

    /** The channel, for the standard services the server also offers (health, reflection). */
    public ManagedChannel channel() {
        return channel;
    }

    private TreeCatGrpc.TreeCatBlockingStub blocking() {
        TreeCatGrpc.TreeCatBlockingStub plain =
                TreeCatGrpc.newBlockingStub(channel).withInterceptors(vids);
        TreeCatGrpc.TreeCatBlockingStub stub =
                credentials.map(plain::withCallCredentials).orElse(plain);
        return callTimeout
                .map(timeout -> stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS))
                .orElse(stub);
    }

    private TreeCatGrpc.TreeCatStub async() {
        TreeCatGrpc.TreeCatStub plain = TreeCatGrpc.newStub(channel).withInterceptors(vids);
        TreeCatGrpc.TreeCatStub stub =
                credentials.map(plain::withCallCredentials).orElse(plain);
        return callTimeout
                .map(timeout -> stub.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS))
                .orElse(stub);
    }

    private static <T> T call(Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            throw TreeCatClientException.from(e);
        }
    }

    // ---- queries

    /** Streams every result of {@code query} at the newest vid; close what is returned. */
    public QueryResults query(String query) {
        return query(QuerySpec.of(query));
    }

    /** Streams the results; close what is returned, which cancels the call if any are left. */
    public QueryResults query(QuerySpec query) {
        return query(Optional.empty(), query);
    }

    /**
     * One page: up to {@code query.limit()} objects (all when 0), and the token for the next page
     * when more follow.
     */
    public QueryPage page(QuerySpec query) {
        return page(Optional.empty(), query);
    }

    QueryResults query(Optional<TransactionId> transaction, QuerySpec query) {
        ExecuteQueryRequest.Builder request = ExecuteQueryRequest.newBuilder()
                .setQuery(query.query())
                .setResults(WireFormat.results(query.results()))
                .addAllProjection(query.projection())
                .setLimit(query.limit())
                .setBatchSize(query.batchSize());
        transaction.ifPresent(id -> request.setTransactionId(id.toString()));
        if (!(query.readPoint() instanceof ReadPoint.Latest)) {
            request.setReadPoint(WireFormat.readPoint(query.readPoint()));
        }
        query.pageToken().ifPresent(request::setPageToken);
        Context.CancellableContext context = Context.current().withCancellation();
        Context previous = context.attach();
        try {
            Iterator<QueryBatch> batches = blocking().executeQuery(request.build());
            return new QueryResults(context, batches);
        } catch (StatusRuntimeException e) {
            context.cancel(e);
            throw TreeCatClientException.from(e);
        } finally {
            context.detach(previous);
        }
    }

    QueryPage page(Optional<TransactionId> transaction, QuerySpec query) {
        try (QueryResults results = query(transaction, query)) {
            List<CatalogObject> rows = new ArrayList<>();
            results.forEachRemaining(rows::add);
            return new QueryPage(results.vid().orElseThrow(), rows, results.nextPageToken());
        }
    }

    /** The query's plan, without running it. */
    public String explain(String query) {
        return call(() -> blocking()
                .explain(ExplainRequest.newBuilder().setQuery(query).build())
                .getPlan());
    }

    // ---- objects

    public Optional<CatalogObject> get(ObjectPath path) {
        return get(path, ReadPoint.LATEST);
    }

    /** The object at {@code path} as of {@code point}; empty if it is absent there. */
    public Optional<CatalogObject> get(ObjectPath path, ReadPoint point) {
        return get(Optional.empty(), path, point);
    }

    Optional<CatalogObject> get(Optional<TransactionId> transaction, ObjectPath path, ReadPoint point) {
        GetObjectRequest.Builder request = GetObjectRequest.newBuilder().setPath(path.toString());
        transaction.ifPresent(id -> request.setTransactionId(id.toString()));
        if (!(point instanceof ReadPoint.Latest)) {
            request.setReadPoint(WireFormat.readPoint(point));
        }
        try {
            return Optional.of(
                    WireFormat.object(blocking().getObject(request.build()).getObject()));
        } catch (StatusRuntimeException e) {
            TreeCatClientException failure = TreeCatClientException.from(e);
            if (failure.errorCode().filter("OBJECT_NOT_FOUND"::equals).isPresent()) {
                return Optional.empty();
            }
            throw failure;
        }
    }

    // ---- transactions and commits

    /** Opens a transaction reading at the newest vid. */
    public RemoteTransaction begin(TransactionMode mode) {
        return begin(mode, ReadPoint.LATEST);
    }

    public RemoteTransaction begin(TransactionMode mode, ReadPoint point) {
        StartTransactionRequest.Builder request =
                StartTransactionRequest.newBuilder().setMode(WireFormat.mode(mode));
        if (!(point instanceof ReadPoint.Latest)) {
            request.setReadPoint(WireFormat.readPoint(point));
        }
        StartTransactionResponse response = call(() -> blocking().startTransaction(request.build()));
        return new RemoteTransaction(
                this, TransactionId.valueOf(response.getTransactionId()), mode, response.getReadVid());
    }

    /** Commits {@code writes} on their own, durably. */
    public CommitSummary commit(WriteSet writes) {
        requireNonNull(writes, "writes is null");
        return commit(CommitRequest.newBuilder().addAllWrites(WireFormat.writes(writes)));
    }

    /**
     * Validates and commits the transaction; the session ends either way.
     *
     * @param writes null to commit without writing
     */
    public CommitSummary commit(TransactionId transaction, WriteSet writes) {
        CommitRequest.Builder request = CommitRequest.newBuilder().setTransactionId(transaction.toString());
        if (writes != null) {
            request.addAllWrites(WireFormat.writes(writes));
        }
        return commit(request);
    }

    private CommitSummary commit(CommitRequest.Builder request) {
        CommitResponse response = call(() -> blocking().commit(request.build()));
        return new CommitSummary(response.getVid(), response.getChangeCount());
    }

    public void abort(TransactionId transaction) {
        call(() -> blocking()
                .abort(AbortRequest.newBuilder()
                        .setTransactionId(transaction.toString())
                        .build()));
    }

    /**
     * Runs {@code work} in a read-write transaction and commits what it returns, retrying ABORTED up
     * to {@link RetryPolicy#defaults()} times; see {@link TransactionRunner}.
     */
    public CommitSummary runInTransaction(TransactionWork work) {
        return runner(RetryPolicy.defaults(), new Random(), Sleeper.SYSTEM).run(work);
    }

    /** A runner with its own retry policy, randomness and way of waiting. */
    public TransactionRunner runner(RetryPolicy policy, Random random, Sleeper sleeper) {
        return new TransactionRunner(this, policy, random, sleeper);
    }

    // ---- snapshots and clones

    public NamedSnapshot createSnapshot(String name, ReadPoint point) {
        SnapshotRequest.Builder request = SnapshotRequest.newBuilder().setName(name);
        if (!(point instanceof ReadPoint.Latest)) {
            request.setReadPoint(WireFormat.readPoint(point));
        }
        return call(
                () -> WireFormat.snapshot(blocking().snapshot(request.build()).getSnapshot()));
    }

    public List<NamedSnapshot> listSnapshots() {
        return call(
                () -> blocking().listSnapshots(ListSnapshotsRequest.getDefaultInstance()).getSnapshotsList().stream()
                        .map(WireFormat::snapshot)
                        .collect(ImmutableList.toImmutableList()));
    }

    public void dropSnapshot(String name) {
        call(() -> blocking()
                .dropSnapshot(DropSnapshotRequest.newBuilder().setName(name).build()));
    }

    /** Copies the subtree at {@code source} as of {@code point} to {@code target}, in one commit. */
    public CommitSummary clone(ObjectPath source, ObjectPath target, ReadPoint point) {
        CloneRequest.Builder request =
                CloneRequest.newBuilder().setSource(source.toString()).setTarget(target.toString());
        if (!(point instanceof ReadPoint.Latest)) {
            request.setReadPoint(WireFormat.readPoint(point));
        }
        CloneResponse response = call(() -> blocking().clone(request.build()));
        return new CommitSummary(response.getVid(), response.getChangeCount());
    }

    // ---- history

    /** One page of the commit log, as the server sends it (vid, time, origin, counts, paths). */
    /**
     * Follows the change feed: the events as the server streams them, for as long as the caller
     * iterates (no deadline; cancel by closing the client). {@code hasNext} and {@code next} throw
     * the stream's end as a {@link io.grpc.StatusRuntimeException}: UNAVAILABLE when the server
     * stops, whose description names the vid to resume after.
     */
    public Iterator<io.treecat.grpc.v1.FeedEvent> subscribe(io.treecat.grpc.v1.SubscribeRequest request) {
        TreeCatGrpc.TreeCatBlockingStub stub =
                TreeCatGrpc.newBlockingStub(channel).withInterceptors(vids);
        return credentials.map(stub::withCallCredentials).orElse(stub).subscribe(request);
    }

    public ListCommitsResponse listCommits(HistoryRequest request) {
        requireNonNull(request, "request is null");
        ListCommitsRequest.Builder wire =
                ListCommitsRequest.newBuilder().setLimit(request.limit()).setNewestFirst(request.newestFirst());
        if (!request.path().isRoot()) {
            wire.setPath(request.path().toString());
        }
        if (request.since() != null) {
            wire.setSince(WireFormat.bound(request.since()));
        }
        if (request.until() != null) {
            wire.setUntil(WireFormat.bound(request.until()));
        }
        request.token().ifPresent(wire::setPageToken);
        return call(() -> blocking().listCommits(wire.build()));
    }

    // ---- bulk load

    /**
     * Streams JSON lines ({@code {"path": ..., "kind": "inner"|"leaf", "value": {...}}}) to the
     * server, which commits every {@code chunkSize} records durably. The input is read as the server
     * takes it, never all at once.
     *
     * @param progress told the number of records sent so far after each message
     * @throws TreeCatClientException on a bad record or a failed commit; its context's {@code
     *     committedRecords} records are durable, and a retry may skip them
     */
    public LoadSummary bulkLoad(Reader jsonLines, int chunkSize, LongConsumer progress) {
        requireNonNull(jsonLines, "jsonLines is null");
        requireNonNull(progress, "progress is null");
        if (chunkSize <= 0) {
            throw new IllegalArgumentException("chunkSize must be positive: " + chunkSize);
        }
        BufferedReader reader = jsonLines instanceof BufferedReader buffered ? buffered : new BufferedReader(jsonLines);
        BulkLoadCall call = new BulkLoadCall();
        async().bulkLoad(call);
        try {
            boolean open =
                    call.send(BulkLoadChunk.newBuilder().setChunkSize(chunkSize).build());
            StringBuilder text = new StringBuilder();
            long records = 0;
            String line;
            while (open && (line = reader.readLine()) != null) {
                text.append(line).append('\n');
                if (!line.isBlank()) {
                    records++;
                }
                if (text.length() >= LOAD_MESSAGE_CHARS) {
                    open = call.send(BulkLoadChunk.newBuilder()
                            .setJsonLines(text.toString())
                            .build());
                    text.setLength(0);
                    progress.accept(records);
                }
            }
            if (open && text.length() > 0) {
                open = call.send(
                        BulkLoadChunk.newBuilder().setJsonLines(text.toString()).build());
                progress.accept(records);
            }
            if (open) {
                call.finish();
            }
            BulkLoadResponse response = call.await();
            return new LoadSummary(
                    response.getRecords(),
                    response.getCommits(),
                    response.getFirstVid(),
                    response.getLastVid(),
                    response.getRecordsPerSecond());
        } catch (IOException e) {
            call.cancel("the load input could not be read", e);
            throw new UncheckedIOException("Cannot read the load input", e);
        } catch (InterruptedException e) {
            call.cancel("interrupted", e);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during a bulk load", e);
        } catch (RuntimeException e) {
            call.cancel("the load failed on the client", e);
            throw e;
        }
    }

    /** Shuts the channel down, cancelling calls still running after 5 seconds. */
    @Override
    public void close() {
        channel.shutdown();
        try {
            if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
                channel.shutdownNow();
            }
        } catch (InterruptedException e) {
            channel.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
