package io.treecat.grpc;

import io.grpc.stub.StreamObserver;
import io.treecat.core.error.CatalogException;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.load.BulkLoader;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.v1.BulkLoadChunk;
import io.treecat.grpc.v1.BulkLoadResponse;
import io.treecat.grpc.v1.LoadRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Receives one bulk load, committing every {@code chunk_size} records as they arrive, with the
 * same record format and chunk semantics as core's {@link BulkLoader}: each chunk one durable
 * commit. gRPC asks the client for the next message only after {@link #onNext} returns, so a
 * fast client waits for the commits instead of filling the server's memory.
 *
 * <p>If the load fails, the error's metadata carries {@code committedRecords} and {@code lastVid}:
 * those records are durable, and a retry resumes after them.
 */
final class BulkLoadReceiver implements StreamObserver<BulkLoadChunk> {
    static final int DEFAULT_CHUNK_SIZE = 1000;
    /** A line still without its newline after this many characters is refused, not buffered forever. */
    static final int MAX_LINE_CHARS = 16 << 20;

    private final CatalogService catalog;
    private final StreamObserver<BulkLoadResponse> response;
    private final long started = System.nanoTime();
    private final StringBuilder partialLine = new StringBuilder();
    private final List<WriteOp> pending = new ArrayList<>();
    private int chunkSize;
    private long lineNumber;
    private long recordNumber;
    private long records;
    private long commits;
    private long firstVid;
    private long lastVid;
    private boolean finished;

    /** Each chunk's origin: a load chunk, by the call's principal when authentication is on. */
    private final CommitOrigin origin;

    BulkLoadReceiver(CatalogService catalog, StreamObserver<BulkLoadResponse> response, CommitOrigin origin) {
        this.origin = origin;
        this.catalog = catalog;
        this.response = response;
    }

    @Override
    public void onNext(BulkLoadChunk chunk) {
        if (finished) {
            return;
        }
        try {
            if (chunkSize == 0) {
                if (chunk.getChunkSize() < 0) {
                    throw new InvalidRequestException("chunk_size", "must not be negative");
                }
                chunkSize = chunk.getChunkSize() == 0 ? DEFAULT_CHUNK_SIZE : chunk.getChunkSize();
            }
            switch (chunk.getPayloadCase()) {
                case JSON_LINES -> acceptText(chunk.getJsonLines());
                case RECORDS -> {
                    for (LoadRecord record : chunk.getRecords().getRecordsList()) {
                        recordNumber++;
                        String field = "records[" + recordNumber + "]";
                        add(new WriteOp.Add(
                                WireFormat.path(record.getPath(), field + ".path"),
                                WireFormat.kind(record.getKind(), field + ".kind"),
                                WireFormat.document(record.getBson(), field + ".bson")));
                    }
                }
                case PAYLOAD_NOT_SET -> {
                    // A message may carry only the chunk size.
                }
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        }
    }

    private void acceptText(String text) {
        partialLine.append(text);
        int start = 0;
        int newline;
        while ((newline = partialLine.indexOf("\n", start)) >= 0) {
            acceptLine(partialLine.substring(start, newline));
            start = newline + 1;
        }
        partialLine.delete(0, start);
        if (partialLine.length() > MAX_LINE_CHARS) {
            throw new InvalidRequestException(
                    "json_lines",
                    "has a line longer than " + MAX_LINE_CHARS + " characters (line " + (lineNumber + 1) + ")");
        }
    }

    private void acceptLine(String line) {
        lineNumber++;
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        if (!line.isBlank()) {
            add(BulkLoader.parse(line, lineNumber));
        }
    }

    private void add(WriteOp op) {
        pending.add(op);
        if (pending.size() >= chunkSize) {
            commitPending();
        }
    }

    private void commitPending() {
        if (pending.isEmpty()) {
            return;
        }
        long vid = catalog.commit(new WriteSet(pending, origin)).vid();
        firstVid = commits == 0 ? vid : firstVid;
        lastVid = vid;
        records += pending.size();
        commits++;
        pending.clear();
    }

    @Override
    public void onError(Throwable cancelled) {
        // The client went away: records not yet committed are dropped, committed chunks stay.
        finished = true;
        pending.clear();
    }

    @Override
    public void onCompleted() {
        if (finished) {
            return;
        }
        try {
            if (partialLine.length() > 0) {
                acceptLine(partialLine.toString());
                partialLine.setLength(0);
            }
            commitPending();
            finished = true;
            long nanos = System.nanoTime() - started;
            response.onNext(BulkLoadResponse.newBuilder()
                    .setRecords(records)
                    .setCommits(commits)
                    .setFirstVid(firstVid)
                    .setLastVid(lastVid)
                    .setRecordsPerSecond(nanos == 0 ? 0 : records * 1e9 / nanos)
                    .build());
            response.onCompleted();
        } catch (RuntimeException | Error e) {
            fail(e);
        }
    }

    private void fail(Throwable failure) {
        finished = true;
        pending.clear();
        if (failure instanceof CatalogException e) {
            e.with("committedRecords", records).with("lastVid", lastVid);
        }
        response.onError(GrpcErrors.toStatus(failure));
    }
}
