package io.treecat.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.treecat.grpc.v1.AddOp;
import io.treecat.grpc.v1.BulkLoadChunk;
import io.treecat.grpc.v1.BulkLoadResponse;
import io.treecat.grpc.v1.CloneRequest;
import io.treecat.grpc.v1.CommitRequest;
import io.treecat.grpc.v1.ExecuteQueryRequest;
import io.treecat.grpc.v1.ExplainRequest;
import io.treecat.grpc.v1.GetObjectRequest;
import io.treecat.grpc.v1.MergeOp;
import io.treecat.grpc.v1.ObjectKind;
import io.treecat.grpc.v1.ReadPoint;
import io.treecat.grpc.v1.SnapshotRequest;
import io.treecat.grpc.v1.StartTransactionRequest;
import io.treecat.grpc.v1.TreeCatGrpc;
import io.treecat.grpc.v1.WriteOp;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.RawBsonDocument;

/**
 * The gRPC part of {@link LiveProtocolFuzzIT}: malformed and oversized protobuf bytes to every method
 * through a raw {@code ClientCall} with a byte-array marshaller, and valid messages with hostile field
 * values through the generated stub. A finding is a status that means the server failed ({@code
 * INTERNAL}, {@code UNKNOWN}, {@code DATA_LOSS}) or no answer within the deadline.
 */
final class GrpcFuzzer implements AutoCloseable {
    /** Statuses that say the server failed, never the client. */
    private static final Set<Status.Code> SERVER_FAILURES =
            Set.of(Status.Code.INTERNAL, Status.Code.UNKNOWN, Status.Code.DATA_LOSS, Status.Code.DEADLINE_EXCEEDED);

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private static final List<String> STUB_METHODS = List.of(
            "GetObject", "ExecuteQuery", "Commit", "Snapshot", "StartTransaction", "Clone", "Explain", "BulkLoad");

    private final HostileInputs inputs;
    private final LiveFuzzLedger ledger;
    private int oversized;
    private final ManagedChannel channel;
    private final TreeCatGrpc.TreeCatBlockingStub stub;

    GrpcFuzzer(LiveProtocolFuzzIT.Target server, HostileInputs inputs, LiveFuzzLedger ledger) {
        this.inputs = inputs;
        this.ledger = ledger;
        this.channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.grpcPort())
                .usePlaintext()
                .maxInboundMessageSize(64 << 20)
                .build();
        this.stub = TreeCatGrpc.newBlockingStub(channel);
    }

    /** Raw bytes to one method: random, a valid message mutated, or a message over the server's inbound limit. */
    void rawOne() {
        List<MethodDescriptor<?, ?>> methods = List.of(
                TreeCatGrpc.getStartTransactionMethod(),
                TreeCatGrpc.getExecuteQueryMethod(),
                TreeCatGrpc.getGetObjectMethod(),
                TreeCatGrpc.getCommitMethod(),
                TreeCatGrpc.getAbortMethod(),
                TreeCatGrpc.getSnapshotMethod(),
                TreeCatGrpc.getListSnapshotsMethod(),
                TreeCatGrpc.getDropSnapshotMethod(),
                TreeCatGrpc.getCloneMethod(),
                TreeCatGrpc.getExplainMethod(),
                TreeCatGrpc.getBulkLoadMethod());
        MethodDescriptor<?, ?> method = inputs.pick(methods);
        String name = inputs.chance(3) ? "treecat.v1.TreeCat/" + inputs.randomChars(8) : method.getFullMethodName();
        MethodDescriptor.MethodType type = method.getType();
        MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(name)
                .setRequestMarshaller(BYTES)
                .setResponseMarshaller(BYTES)
                .build();
        byte[] message = rawMessage();
        String describe = name + " <- " + LiveFuzzLedger.quote(hexHead(message));
        ledger.sent("grpc");
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
        try {
            switch (type) {
                case UNARY -> ClientCalls.blockingUnaryCall(channel, raw, options, message);
                case SERVER_STREAMING -> {
                    Iterator<byte[]> answers = ClientCalls.blockingServerStreamingCall(channel, raw, options, message);
                    answers.forEachRemaining(answer -> {});
                }
                default -> clientStreaming(raw, options, message);
            }
        } catch (StatusRuntimeException e) {
            judge(name.substring(name.indexOf('/') + 1) + " (raw)", e.getStatus(), describe);
        }
    }

    private void clientStreaming(MethodDescriptor<byte[], byte[]> raw, CallOptions options, byte[] message) {
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        StreamObserver<byte[]> requests =
                ClientCalls.asyncClientStreamingCall(channel.newCall(raw, options), new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {
                        done.complete(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(new byte[0]);
                    }
                });
        requests.onNext(message);
        if (inputs.chance(50)) {
            requests.onNext(rawMessage());
        }
        requests.onCompleted();
        try {
            done.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw Status.fromThrowable(e.getCause()).asRuntimeException();
        } catch (TimeoutException e) {
            throw Status.DEADLINE_EXCEEDED.asRuntimeException();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private byte[] rawMessage() {
        switch (inputs.nextInt(6)) {
            case 0: {
                byte[] bytes = new byte[inputs.nextInt(300)];
                inputs.random().nextBytes(bytes);
                return bytes;
            }
            case 1: // over grpc.max-inbound-message-size (16 MiB): RESOURCE_EXHAUSTED
                if (oversized++ % 8 == 0) {
                    // One in eight: each costs the test JVM's Netty 17 MiB of direct memory, which a long run
                    // exhausted.
                    return new byte[(16 << 20) + 1 + inputs.nextInt(1 << 20)];
                }
                return validMessage().toByteArray();
            case 2: { // a valid message, truncated
                byte[] valid = validMessage().toByteArray();
                return Arrays.copyOf(valid, inputs.nextInt(valid.length + 1));
            }
            case 3: { // a valid message with bytes flipped
                byte[] valid = validMessage().toByteArray();
                for (int i = 0; i < 1 + inputs.nextInt(4) && valid.length > 0; i++) {
                    valid[inputs.nextInt(valid.length)] ^= (byte) (1 << inputs.nextInt(8));
                }
                return valid;
            }
            case 4: // a length-delimited field declaring far more than follows
                return new byte[] {0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 'a'};
            default: // a deep nest of one field holding itself, past protobuf's recursion limit
                byte[] nested = new byte[0];
                for (int i = 0; i < 200; i++) {
                    byte[] outer = new byte
                            [nested.length + 2 + (nested.length > 127 ? 1 : 0) + (nested.length > 16383 ? 1 : 0)];
                    outer[0] = 0x12;
                    int at = 1;
                    int length = nested.length;
                    while (length > 127) {
                        outer[at++] = (byte) ((length & 0x7F) | 0x80);
                        length >>>= 7;
                    }
                    outer[at++] = (byte) length;
                    System.arraycopy(nested, 0, outer, at, nested.length);
                    nested = Arrays.copyOf(outer, at + nested.length);
                }
                return nested;
        }
    }

    private MessageLite validMessage() {
        return CommitRequest.newBuilder()
                .addWrites(WriteOp.newBuilder()
                        .setAdd(AddOp.newBuilder()
                                .setPath("/fuzz/" + inputs.name())
                                .setKind(ObjectKind.OBJECT_KIND_LEAF)
                                .setBson(bson())))
                .build();
    }

    /** Valid messages with hostile field values through the generated stub. */
    void stubOne() {
        String name = inputs.name();
        int kind = inputs.nextInt(8);
        String method = STUB_METHODS.get(kind);
        StringBuilder describe = new StringBuilder();
        ledger.sent("grpc");
        TreeCatGrpc.TreeCatBlockingStub call = stub.withDeadlineAfter(30, TimeUnit.SECONDS);
        String created = null;
        try {
            switch (kind) {
                case 0 -> {
                    describe.append("GetObject(" + name + ")");
                    call.getObject(GetObjectRequest.newBuilder()
                            .setPath(inputs.chance(50) ? "/fuzz/" + name : name)
                            .setReadPoint(readPoint())
                            .build());
                }
                case 1 -> {
                    String query = inputs.chance(50)
                            ? "/fuzz/" + inputs.pick(List.of("*", "[n > 1]", "[obj_id = '" + name + "']"))
                            : inputs.randomChars(inputs.nextInt(40));
                    int limit = inputs.pick(List.of(-1, 0, 1, Integer.MAX_VALUE, Integer.MIN_VALUE));
                    int batch = inputs.pick(List.of(-1, 0, 1, Integer.MAX_VALUE));
                    describe.append("ExecuteQuery(" + query + ", limit " + limit + ", batch " + batch + ")");
                    call.executeQuery(ExecuteQueryRequest.newBuilder()
                                    .setQuery(query)
                                    .setLimit(limit)
                                    .setBatchSize(batch)
                                    .setPageToken(inputs.chance(30) ? inputs.randomChars(20) : "")
                                    .addProjection(inputs.chance(30) ? name : "n")
                                    .setTransactionId(inputs.chance(10) ? name : "")
                                    .build())
                            .forEachRemaining(batchOfRows -> {});
                }
                case 2 -> {
                    String path = inputs.chance(70) ? "/fuzz/" + name : name;
                    boolean merge = inputs.chance(30);
                    describe.append("Commit(" + (merge ? "merge " : "add ") + path + ")");
                    WriteOp op = merge
                            ? WriteOp.newBuilder()
                                    .setMerge(MergeOp.newBuilder().setPath(path).setDeltaBson(bson()))
                                    .build()
                            : WriteOp.newBuilder()
                                    .setAdd(AddOp.newBuilder()
                                            .setPath(path)
                                            .setKindValue(inputs.pick(List.of(0, 1, 2, 3, -1)))
                                            .setBson(bson()))
                                    .build();
                    created = merge ? null : "object " + path;
                    call.commit(CommitRequest.newBuilder()
                            .addWrites(op)
                            .setTransactionId(inputs.chance(10) ? name : "")
                            .build());
                    if (created != null) {
                        ledger.acknowledgedAsEncoded(path);
                    }
                }
                case 3 -> {
                    describe.append("Snapshot(" + name + ")");
                    call.snapshot(SnapshotRequest.newBuilder()
                            .setName(name)
                            .setReadPoint(readPoint())
                            .build());
                }
                case 4 -> {
                    describe.append("StartTransaction");
                    call.startTransaction(StartTransactionRequest.newBuilder()
                            .setModeValue(inputs.pick(List.of(0, 1, 2, 99)))
                            .setReadPoint(readPoint())
                            .build());
                }
                case 5 -> {
                    String target = "/fuzzclone/" + name;
                    describe.append("Clone(/fuzz, " + target + ")");
                    call.clone(CloneRequest.newBuilder()
                            .setSource(inputs.chance(50) ? "/fuzz" : name)
                            .setTarget(inputs.chance(70) ? target : name)
                            .setReadPoint(readPoint())
                            .build());
                }
                case 6 -> {
                    String query = inputs.randomChars(inputs.nextInt(60));
                    describe.append("Explain(" + query + ")");
                    call.explain(ExplainRequest.newBuilder().setQuery(query).build());
                }
                default -> {
                    describe.append("BulkLoad");
                    bulkLoad(name);
                }
            }
        } catch (StatusRuntimeException e) {
            judge(method, e.getStatus(), describe.toString());
            if (created != null && e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
                ledger.refusedCreate(created, e.getStatus().toString());
            }
        }
    }

    private void bulkLoad(String name) {
        // A load commits chunk by chunk: a later bad line fails the call, yet the first may be durable.
        ledger.acknowledgedAsEncoded("/fuzz/" + name);
        CompletableFuture<BulkLoadResponse> done = new CompletableFuture<>();
        StreamObserver<BulkLoadChunk> chunks = TreeCatGrpc.newStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .bulkLoad(new StreamObserver<>() {
                    @Override
                    public void onNext(BulkLoadResponse value) {
                        done.complete(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {}
                });
        chunks.onNext(BulkLoadChunk.newBuilder()
                .setChunkSize(inputs.pick(List.of(-1, 0, 1, Integer.MAX_VALUE)))
                .setJsonLines("{\"path\": " + LiveProtocolFuzzIT.jsonString("/fuzz/" + name)
                        + ", \"kind\": \"leaf\", \"value\": {\"n\": 1}}\n"
                        + (inputs.chance(50) ? inputs.randomChars(30) : ""))
                .build());
        chunks.onCompleted();
        try {
            done.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw Status.fromThrowable(e.getCause()).asRuntimeException();
        } catch (TimeoutException e) {
            throw Status.DEADLINE_EXCEEDED.withDescription("bulk load").asRuntimeException();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private ReadPoint readPoint() {
        switch (inputs.nextInt(4)) {
            case 0:
                return ReadPoint.newBuilder()
                        .setVid(inputs.pick(List.of(-1L, 0L, Long.MAX_VALUE, Long.MIN_VALUE)))
                        .build();
            case 1:
                return ReadPoint.newBuilder().setSnapshot(inputs.name()).build();
            default:
                return ReadPoint.getDefaultInstance();
        }
    }

    private ByteString bson() {
        switch (inputs.nextInt(4)) {
            case 0: {
                byte[] garbage = new byte[inputs.nextInt(64)];
                inputs.random().nextBytes(garbage);
                return ByteString.copyFrom(garbage);
            }
            case 1: { // a document whose declared length lies
                byte[] document = new RawBsonDocument(
                                new BsonDocument("n", new BsonInt32(1)), new org.bson.codecs.BsonDocumentCodec())
                        .getByteBuffer()
                        .array()
                        .clone();
                document[0] = (byte) inputs.nextInt(256);
                return ByteString.copyFrom(document);
            }
            case 2:
                return ByteString.EMPTY;
            default:
                return ByteString.copyFrom(new RawBsonDocument(
                                new BsonDocument("n", new BsonInt32(1)), new org.bson.codecs.BsonDocumentCodec())
                        .getByteBuffer()
                        .array());
        }
    }

    private void judge(String method, Status status, String describe) {
        if (SERVER_FAILURES.contains(status.getCode())) {
            ledger.finding(
                    "gRPC " + method + ": " + status.getCode() + " "
                            + LiveProtocolFuzzIT.errorKind(String.valueOf(status.getDescription())),
                    describe + " -> " + status);
        }
    }

    private static String hexHead(byte[] bytes) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < Math.min(bytes.length, 48); i++) {
            text.append(String.format("%02x", bytes[i]));
        }
        return text.append(" (").append(bytes.length).append(" bytes)").toString();
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
