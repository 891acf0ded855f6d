package io.treecat.core.load;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.json.JsonLimits;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BSONException;
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.json.JsonParseException;

/**
 * Imports objects from JSON lines, one object a line:
 *
 * <pre>{"path": "/retail/sales/2025-01-01/f1.parquet", "kind": "leaf", "value": {"size": 1024}}</pre>
 *
 * <p>{@code kind} is {@code inner} or {@code leaf}; {@code value} is a document in MongoDB Extended
 * JSON (relaxed or canonical). Parents must come before their children, in the input or already in
 * the tree. Objects are committed in chunks of {@code chunkSize} records, each chunk one atomic,
 * durable commit: after a crash the objects of every acknowledged chunk are present and nothing of
 * the chunk in progress is, so a load resumes after the last reported count.
 */
public final class BulkLoader {
    /** Told after each committed chunk. */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (records, vid) -> {};

        void committed(long recordsSoFar, long vid);
    }

    /** What a load did. */
    public record LoadResult(long records, long commits, long firstVid, long lastVid, long nanos) {
        public double recordsPerSecond() {
            return nanos == 0 ? 0 : records * 1e9 / nanos;
        }
    }

    /** Commits one chunk atomically and durably; the transaction manager's or the tree's commit. */
    @FunctionalInterface
    public interface Committer {
        CommitResult commit(WriteSet writes);
    }

    private final Committer committer;
    private final int chunkSize;
    private final JsonLimits limits;

    public BulkLoader(Committer committer, int chunkSize) {
        this(committer, chunkSize, JsonLimits.DEFAULTS);
    }

    /** @param limits what each line may hold (a line over a limit is an invalid record naming the limit) */
    public BulkLoader(Committer committer, int chunkSize, JsonLimits limits) {
        this.committer = requireNonNull(committer, "committer is null");
        this.limits = requireNonNull(limits, "limits is null");
        if (chunkSize <= 0) {
            throw new IllegalArgumentException("chunkSize must be positive");
        }
        this.chunkSize = chunkSize;
    }

    public LoadResult load(BufferedReader input, Progress progress) {
        Loading loading = new Loading(progress);
        List<WriteOp> chunk = new ArrayList<>(chunkSize);
        long lineNumber = 0;
        // One chunk commits on a background thread while the next is parsed: parsing JSON costs about
        // as much as committing, so the two overlap instead of alternating.
        ExecutorService committer = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "treecat-bulk-load-commit");
            thread.setDaemon(true);
            return thread;
        });
        try {
            String line;
            while ((line = input.readLine()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                chunk.add(parse(line, lineNumber, limits));
                if (chunk.size() == chunkSize) {
                    loading.submit(committer, chunk, lineNumber);
                    chunk = new ArrayList<>(chunkSize);
                }
            }
            if (!chunk.isEmpty()) {
                loading.submit(committer, chunk, lineNumber);
            }
            loading.awaitInFlight();
        } catch (IOException e) {
            loading.awaitQuietly();
            throw new UncheckedIOException("Cannot read the load input at line " + (lineNumber + 1), e);
        } catch (RuntimeException e) {
            // A bad record or a failed commit: let the chunk in flight finish, so what is reported as
            // committed is exactly what is durable, then fail.
            loading.awaitQuietly();
            throw e;
        } finally {
            committer.shutdownNow();
        }
        return loading.result();
    }

    /** The state of one load: the chunk in flight and what has been committed. */
    private final class Loading {
        private final Progress progress;
        private final long started = System.nanoTime();
        private Future<Long> inFlight;
        private int inFlightSize;
        private long records;
        private long commits;
        private long firstVid;
        private long lastVid;

        Loading(Progress progress) {
            this.progress = progress;
        }

        void submit(ExecutorService committer, List<WriteOp> chunk, long lastLine) {
            awaitInFlight();
            inFlightSize = chunk.size();
            inFlight = committer.submit(() -> commit(chunk, lastLine));
        }

        void awaitInFlight() {
            if (inFlight == null) {
                return;
            }
            long vid;
            try {
                vid = inFlight.get();
            } catch (ExecutionException e) {
                inFlight = null;
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException("bulk load commit failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CatalogException(ErrorCode.COMMIT_STATE_UNKNOWN, "Interrupted while a chunk was committing")
                        .with("committedRecords", records);
            }
            inFlight = null;
            lastVid = vid;
            firstVid = firstVid == 0 ? vid : firstVid;
            records += inFlightSize;
            commits++;
            progress.committed(records, vid);
        }

        void awaitQuietly() {
            try {
                awaitInFlight();
            } catch (RuntimeException ignored) {
                // The first failure is the one reported.
            }
        }

        LoadResult result() {
            return new LoadResult(records, commits, firstVid, lastVid, System.nanoTime() - started);
        }
    }

    private long commit(List<WriteOp> chunk, long lastLine) {
        try {
            return committer
                    .commit(new WriteSet(chunk, CommitOrigin.LOAD_CHUNK))
                    .vid();
        } catch (CatalogException e) {
            throw e.with("chunkEndsAtLine", lastLine);
        }
    }

    /** Parses one line into an add, within the default limits. */
    public static WriteOp.Add parse(String line, long lineNumber) {
        return parse(line, lineNumber, JsonLimits.DEFAULTS);
    }

    /** Parses one line into an add; a line over one of {@code limits} is an invalid record naming the limit. */
    public static WriteOp.Add parse(String line, long lineNumber, JsonLimits limits) {
        BsonDocument record;
        try {
            // Parse straight to BSON bytes: the value is then stored without decoding and re-encoding it.
            record = JsonToBson.parse(line, limits);
        } catch (JsonParseException | IllegalArgumentException | BSONException e) {
            // BSONException: what BSON cannot hold (a NUL in a field name), or a value org.bson refuses.
            throw invalid(lineNumber, "not a JSON object: " + e.getMessage());
        } catch (CatalogException e) {
            CatalogException invalid = invalid(lineNumber, e.getMessage());
            e.context().forEach(invalid::with);
            throw invalid;
        }
        BsonValue path = record.get("path");
        if (path == null || !path.isString()) {
            throw invalid(lineNumber, "\"path\" must be a string");
        }
        BsonValue kind = record.get("kind");
        if (kind == null || !kind.isString()) {
            throw invalid(lineNumber, "\"kind\" must be \"inner\" or \"leaf\"");
        }
        ObjectKind objectKind;
        switch (kind.asString().getValue().toLowerCase(Locale.ROOT)) {
            case "inner":
                objectKind = ObjectKind.INNER;
                break;
            case "leaf":
                objectKind = ObjectKind.LEAF;
                break;
            default:
                throw invalid(
                        lineNumber,
                        "\"kind\" must be \"inner\" or \"leaf\", not \""
                                + kind.asString().getValue() + "\"");
        }
        BsonValue value = record.get("value", new BsonDocument());
        if (!value.isDocument()) {
            throw invalid(lineNumber, "\"value\" must be an object");
        }
        String unknown = firstUnknownField((RawBsonDocument) record);
        if (unknown != null) {
            throw invalid(lineNumber, "unknown field \"" + unknown + "\" (expected path, kind, value)");
        }
        ObjectPath objectPath;
        try {
            objectPath = ObjectPath.parse(path.asString().getValue());
        } catch (CatalogException e) {
            throw invalid(lineNumber, e.getMessage());
        }
        return new WriteOp.Add(objectPath, objectKind, value.asDocument());
    }

    /** Walks the top-level names of the raw record; keySet() would decode the whole value. */
    private static String firstUnknownField(RawBsonDocument record) {
        try (BsonBinaryReader reader =
                new BsonBinaryReader(record.getByteBuffer().asNIO())) {
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                String name = reader.readName();
                if (!name.equals("path") && !name.equals("kind") && !name.equals("value")) {
                    return name;
                }
                reader.skipValue();
            }
            return null;
        }
    }

    private static CatalogException invalid(long lineNumber, String problem) {
        return new CatalogException(
                        ErrorCode.INVALID_LOAD_RECORD, "Invalid record at line " + lineNumber + ": " + problem)
                .with("line", lineNumber);
    }
}
