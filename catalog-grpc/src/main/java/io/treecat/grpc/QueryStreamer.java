package io.treecat.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.grpc.v1.CatalogObject;
import io.treecat.grpc.v1.QueryBatch;

/**
 * Streams one query's cursor to one call, a batch at a time, only while the transport can take
 * more ({@code isReady}), so a client reading slowly holds the server at a few batches in memory
 * rather than the whole result. The cursor holds RocksDB iterators: it is closed on every way out,
 * the last batch, a failure, a cancel or an expired deadline.
 *
 * <p>gRPC runs one call's callbacks (onReady, onCancel) one at a time, so the cursor is never used
 * by two threads at once.
 */
final class QueryStreamer {
    /** Keeps a batch of large values from growing past what a client accepts by default (4 MiB). */
    static final int MAX_BATCH_BYTES = 1 << 20;

    private final QueryCursor cursor;
    private final ServerCallStreamObserver<QueryBatch> call;
    private final long limit;
    private final int batchSize;
    private long sent;
    /** The cursor stands on a row not yet sent: advanced to look ahead for the end. */
    private boolean pending;

    private boolean done;

    /**
     * @param limit the most rows to send; 0 for all
     */
    QueryStreamer(QueryCursor cursor, ServerCallStreamObserver<QueryBatch> call, long limit, int batchSize) {
        this.cursor = cursor;
        this.call = call;
        this.limit = limit;
        this.batchSize = batchSize;
    }

    /** Registers with the call; gRPC then calls {@link #drain} as soon as the call is ready. */
    void start() {
        call.setOnCancelHandler(this::cancel);
        call.setOnReadyHandler(this::drain);
    }

    private void cancel() {
        if (!done) {
            done = true;
            cursor.close();
        }
    }

    /** Sends batches until the transport pushes back, the rows end, or the call is cancelled. */
    void drain() {
        try {
            while (!done) {
                if (call.isCancelled()) {
                    cancel();
                    return;
                }
                if (!call.isReady()) {
                    return;
                }
                sendBatch();
            }
        } catch (RuntimeException | Error e) {
            cancel();
            call.onError(GrpcErrors.toStatus(e));
        }
    }

    private void sendBatch() {
        QueryBatch.Builder batch = QueryBatch.newBuilder().setVid(cursor.vid());
        int bytes = 0;
        boolean last = false;
        while (true) {
            if (!pending && !cursor.advance()) {
                last = true;
                break;
            }
            pending = false;
            CatalogObject object = WireFormat.object(cursor.current());
            batch.addObjects(object);
            bytes += object.getSerializedSize();
            sent++;
            if (limit > 0 && sent == limit) {
                String token = cursor.continuation();
                if (cursor.advance()) {
                    batch.setNextPageToken(token);
                }
                last = true;
                break;
            }
            if (batch.getObjectsCount() >= batchSize || bytes >= MAX_BATCH_BYTES) {
                // Look ahead, so the stream never ends with an empty batch.
                pending = cursor.advance();
                last = !pending;
                break;
            }
        }
        call.onNext(batch.build());
        if (last) {
            done = true;
            cursor.close();
            call.onCompleted();
        }
    }
}
