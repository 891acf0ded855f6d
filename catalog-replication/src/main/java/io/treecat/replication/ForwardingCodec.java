package io.treecat.replication;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitOrigin;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.parser.QueryParser;
import io.treecat.core.query.plan.PlanStep;
import io.treecat.core.query.plan.QueryPlanner;
import io.treecat.core.query.tree.Step;
import io.treecat.core.replication.ForwardedCommit;
import io.treecat.core.txn.ScanEntry;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.ObjectChange;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBinaryReader;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;

/**
 * The wire form of a forwarded commit and of its answer, between the nodes of a group (BSON, like the
 * tree's values): a replica's scan set, read vid and write set to the leader; the commit's vid and
 * changes, or the refusal with its code, message and context, back.
 *
 * <p>A scan entry travels as its parent path, depth and step in query syntax; the leader plans the step
 * again, so both nodes validate with the same predicate and id ranges.
 */
final class ForwardingCodec {
    private ForwardingCodec() {}

    static byte[] encodeCommit(ForwardedCommit commit) {
        BsonArray scans = new BsonArray();
        for (ScanEntry scan : commit.scanSet()) {
            scans.add(new BsonDocument()
                    .append("parent", path(scan.parent()))
                    .append("depth", new BsonInt32(scan.step().depth()))
                    .append("position", new BsonInt32(scan.step().step().position()))
                    .append("step", new BsonString(scan.step().step().toString()))
                    .append("needsValue", BsonBoolean.valueOf(scan.step().needsValue()))
                    .append("kinds", new BsonString(scan.kinds().name()))
                    .append("returnsObjects", BsonBoolean.valueOf(scan.returnsObjects())));
        }
        BsonArray writes = new BsonArray();
        for (WriteOp op : commit.writes().ops()) {
            writes.add(write(op));
        }
        CommitOrigin origin = commit.writes().origin();
        BsonDocument document = new BsonDocument()
                .append("readVid", new BsonInt64(commit.readVid()))
                .append("validate", BsonBoolean.valueOf(commit.validate()))
                .append(
                        "origin",
                        new BsonDocument()
                                .append("principal", nullable(origin.principal()))
                                .append("interface", nullable(origin.interfaceName()))
                                .append("operation", nullable(origin.operation()))
                                .append("requestId", nullable(origin.requestId())))
                .append("sentAfterVid", new BsonInt64(commit.sentAfterVid()))
                .append("resent", BsonBoolean.valueOf(commit.resent()))
                .append("scans", scans)
                .append("writes", writes);
        return bytes(document);
    }

    static ForwardedCommit decodeCommit(ByteBuffer bytes) {
        return decodeCommit(document(bytes));
    }

    static ForwardedCommit decodeCommit(BsonDocument document) {
        List<ScanEntry> scans = new ArrayList<>();
        for (BsonValue value : document.getArray("scans")) {
            BsonDocument scan = value.asDocument();
            PlanStep planned = QueryPlanner.plan(
                            QueryParser.parse("/" + scan.getString("step").getValue()))
                    .steps()
                    .get(0);
            // Planned as the first step of a query of its own; its place in the replica's query is kept.
            int position = scan.getInt32("position").getValue();
            Step step = planned.step() instanceof Step.Filter filter
                    ? new Step.Filter(filter.expr(), position)
                    : new Step.Wildcard(position);
            scans.add(new ScanEntry(
                    path(scan.getArray("parent")),
                    new PlanStep(
                            scan.getInt32("depth").getValue(),
                            step,
                            planned.idRanges(),
                            scan.getBoolean("needsValue").getValue()),
                    ChildKinds.valueOf(scan.getString("kinds").getValue()),
                    scan.getBoolean("returnsObjects").getValue()));
        }
        List<WriteOp> writes = new ArrayList<>();
        for (BsonValue value : document.getArray("writes")) {
            writes.add(write(value.asDocument()));
        }
        BsonDocument origin = document.getDocument("origin");
        WriteSet writeSet = new WriteSet(
                writes,
                new CommitOrigin(
                        string(origin.get("principal")),
                        string(origin.get("interface")),
                        string(origin.get("operation"))));
        long readVid = document.getInt64("readVid").getValue();
        boolean validate = document.getBoolean("validate").getValue();
        String requestId = string(origin.get("requestId"));
        if (requestId == null) {
            // From a replica of an older version, which never sends a commit twice.
            return ForwardedCommit.first(scans, readVid, writeSet, validate, readVid);
        }
        return new ForwardedCommit(
                scans,
                readVid,
                writeSet.withOrigin(writeSet.origin().withRequestId(requestId)),
                validate,
                document.getInt64("sentAfterVid").getValue(),
                document.getBoolean("resent").getValue());
    }

    static byte[] encodeResult(CommitResult result) {
        BsonArray changes = new BsonArray();
        for (ObjectChange change : result.changes()) {
            changes.add(new BsonDocument()
                    .append("path", path(change.path()))
                    .append("beforeKind", kind(change.beforeKind()))
                    .append("before", change.before() == null ? BsonNull.VALUE : change.before())
                    .append("afterKind", kind(change.afterKind()))
                    .append("after", change.after() == null ? BsonNull.VALUE : change.after()));
        }
        return bytes(
                new BsonDocument().append("vid", new BsonInt64(result.vid())).append("changes", changes));
    }

    /**
     * @param leaderVid the newest vid the leader had installed when it refused: the replica answers once it has it
     *     too, so that a caller who retries after a conflict reads the write it conflicted with
     */
    static byte[] encodeRefusal(CatalogException refusal, long leaderVid) {
        BsonDocument context = new BsonDocument();
        for (Map.Entry<String, Object> entry : refusal.context().entrySet()) {
            context.append(entry.getKey(), new BsonString(String.valueOf(entry.getValue())));
        }
        return bytes(new BsonDocument()
                .append("code", new BsonString(refusal.code().name()))
                .append("message", new BsonString(refusal.getMessage()))
                .append("context", context)
                .append("leaderVid", new BsonInt64(leaderVid)));
    }

    /** What applying a group operation came to: {@code refusal}, or applied when it is null. */
    static byte[] encodeOperationOutcome(CatalogException refusal, long vid) {
        return refusal == null ? bytes(new BsonDocument("applied", new BsonInt64(vid))) : encodeRefusal(refusal, vid);
    }

    /** The refusal a group operation met, or null if it was applied. */
    static CatalogException decodeOperationOutcome(ByteBuffer bytes) {
        BsonDocument document = document(bytes);
        if (document.containsKey("applied")) {
            return null;
        }
        return decodeAnswer(bytes).refusal();
    }

    /** The leader's answer: the commit, or its refusal and the newest vid the leader had installed then. */
    record Answer(CommitResult result, CatalogException refusal, long leaderVid) {}

    /** The leader's answer; a refusal's code, message and context as the caller's own. */
    static Answer decodeAnswer(ByteBuffer bytes) {
        BsonDocument document = document(bytes);
        if (document.containsKey("code")) {
            ErrorCode code;
            try {
                code = ErrorCode.valueOf(document.getString("code").getValue());
            } catch (IllegalArgumentException newerLeader) {
                code = ErrorCode.COMMIT_STATE_UNKNOWN; // a code this node does not know: say no more than it can
            }
            CatalogException refusal =
                    new CatalogException(code, document.getString("message").getValue());
            document.getDocument("context")
                    .forEach((key, value) -> refusal.with(key, value.asString().getValue()));
            // Absent from a leader of an older version (a rolling upgrade): the refusal is answered at once.
            return new Answer(
                    null,
                    refusal,
                    document.getInt64("leaderVid", new BsonInt64(0)).getValue());
        }
        List<ObjectChange> changes = new ArrayList<>();
        for (BsonValue value : document.getArray("changes")) {
            BsonDocument change = value.asDocument();
            changes.add(new ObjectChange(
                    path(change.getArray("path")),
                    kind(change.get("beforeKind")),
                    change.get("before").isNull() ? null : change.getDocument("before"),
                    kind(change.get("afterKind")),
                    change.get("after").isNull() ? null : change.getDocument("after")));
        }
        return new Answer(new CommitResult(document.getInt64("vid").getValue(), changes), null, 0);
    }

    private static BsonDocument write(WriteOp op) {
        if (op instanceof WriteOp.Add add) {
            return new BsonDocument("op", new BsonString("add"))
                    .append("path", path(add.path()))
                    .append("kind", kind(add.kind()))
                    .append("value", add.value());
        } else if (op instanceof WriteOp.Update update) {
            return new BsonDocument("op", new BsonString("update"))
                    .append("path", path(update.path()))
                    .append("kind", kind(update.kind()))
                    .append("value", update.value());
        } else if (op instanceof WriteOp.Remove remove) {
            return new BsonDocument("op", new BsonString("remove")).append("path", path(remove.path()));
        } else if (op instanceof WriteOp.Merge merge) {
            return new BsonDocument("op", new BsonString("merge"))
                    .append("path", path(merge.path()))
                    .append("delta", merge.delta());
        } else if (op instanceof WriteOp.Clone clone) {
            return new BsonDocument("op", new BsonString("clone"))
                    .append("source", path(clone.source()))
                    .append("path", path(clone.path()))
                    .append("vid", new BsonInt64(clone.sourceVid()));
        }
        throw new IllegalArgumentException("no wire form for the write " + op);
    }

    private static WriteOp write(BsonDocument op) {
        String kind = op.getString("op").getValue();
        return switch (kind) {
            case "add" -> new WriteOp.Add(path(op.getArray("path")), kind(op.get("kind")), op.getDocument("value"));
            case "update" ->
                new WriteOp.Update(path(op.getArray("path")), kind(op.get("kind")), op.getDocument("value"));
            case "remove" -> new WriteOp.Remove(path(op.getArray("path")));
            case "merge" -> new WriteOp.Merge(path(op.getArray("path")), op.getDocument("delta"));
            case "clone" ->
                new WriteOp.Clone(
                        path(op.getArray("source")),
                        path(op.getArray("path")),
                        op.getInt64("vid").getValue());
            default -> throw new IllegalArgumentException("unknown forwarded write " + kind);
        };
    }

    private static BsonArray path(ObjectPath path) {
        BsonArray ids = new BsonArray();
        path.ids().forEach(id -> ids.add(new BsonString(id)));
        return ids;
    }

    private static ObjectPath path(BsonArray ids) {
        return new ObjectPath(ids.stream().map(id -> id.asString().getValue()).toList());
    }

    private static BsonValue kind(ObjectKind kind) {
        return kind == null ? BsonNull.VALUE : new BsonString(kind.name());
    }

    private static ObjectKind kind(BsonValue kind) {
        return kind == null || kind.isNull()
                ? null
                : ObjectKind.valueOf(kind.asString().getValue());
    }

    private static BsonValue nullable(String value) {
        return value == null ? BsonNull.VALUE : new BsonString(value);
    }

    private static String string(BsonValue value) {
        return value == null || value.isNull() ? null : value.asString().getValue();
    }

    static byte[] bytes(BsonDocument document) {
        RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
        ByteBuffer buffer = raw.getByteBuffer().asNIO();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    static BsonDocument document(ByteBuffer bytes) {
        try (BsonBinaryReader reader = new BsonBinaryReader(bytes.duplicate())) {
            return new BsonDocumentCodec()
                    .decode(reader, DecoderContext.builder().build());
        }
    }
}
