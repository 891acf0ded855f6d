package io.treecat.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.txn.TransactionMode;
import io.treecat.core.version.ChildKinds;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.v1.AddOp;
import io.treecat.grpc.v1.ChangeKind;
import io.treecat.grpc.v1.CloneOp;
import io.treecat.grpc.v1.HistoryBound;
import io.treecat.grpc.v1.MergeOp;
import io.treecat.grpc.v1.RemoveOp;
import io.treecat.grpc.v1.ResultKinds;
import io.treecat.grpc.v1.UpdateOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Conversions between the treecat.v1 messages and core's types, shared by the service and the
 * client so both sides read and write the wire the same way. Everything read from a request is
 * checked here, and a failure names the request field ({@code writes[3].add.bson}), because the
 * caller can only fix what it can find.
 */
public final class WireFormat {
    private static final BsonDocumentCodec DOCUMENT_CODEC = new BsonDocumentCodec();

    private WireFormat() {}

    // ---- paths, values, kinds

    /** A required path field. */
    public static ObjectPath path(String text, String field) {
        if (text.isEmpty()) {
            throw new InvalidRequestException(field, "is required (a path such as /db/table)");
        }
        try {
            return ObjectPath.parse(text);
        } catch (CatalogException e) {
            throw withField(e, field);
        }
    }

    /**
     * A BSON document field, checked completely here: a value is stored as the bytes it arrives in,
     * so a malformed one must never get past the door. Empty bytes are the empty document.
     */
    public static BsonDocument document(ByteString bytes, String field) {
        if (bytes.isEmpty()) {
            return new BsonDocument();
        }
        byte[] array = bytes.toByteArray();
        if (array.length < 5) {
            throw invalidBson(field, "a BSON document has at least 5 bytes, not " + array.length);
        }
        int declared = ByteBuffer.wrap(array).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (declared != array.length) {
            throw invalidBson(field, "the document declares " + declared + " bytes but " + array.length + " were sent");
        }
        RawBsonDocument document = new RawBsonDocument(array);
        try {
            document.decode(DOCUMENT_CODEC);
        } catch (RuntimeException e) {
            throw invalidBson(field, String.valueOf(e.getMessage()));
        }
        return document;
    }

    private static CatalogException invalidBson(String field, String problem) {
        return new CatalogException(ErrorCode.INVALID_VALUE, "Invalid BSON in " + field + ": " + problem)
                .with("field", field);
    }

    /**
     * The raw BSON bytes of a value; a value read from storage is already raw and is not re-encoded, nor copied: a
     * raw document's bytes are never written after it is made (every one in this code base is over an array of its
     * own, from storage, a projection or an encoder), so the message can share them.
     */
    public static ByteString bytes(BsonDocument document) {
        if (document instanceof RawBsonDocument raw) {
            return UnsafeByteOperations.unsafeWrap(raw.getByteBuffer().asNIO());
        }
        BasicOutputBuffer out = new BasicOutputBuffer();
        DOCUMENT_CODEC.encode(
                new BsonBinaryWriter(out), document, EncoderContext.builder().build());
        return ByteString.copyFrom(out.getInternalBuffer(), 0, out.getPosition());
    }

    /** A kind in a write; unspecified is inner, as in the JSON write-set form. */
    public static ObjectKind kind(io.treecat.grpc.v1.ObjectKind kind, String field) {
        return switch (kind) {
            case OBJECT_KIND_UNSPECIFIED, OBJECT_KIND_INNER -> ObjectKind.INNER;
            case OBJECT_KIND_LEAF -> ObjectKind.LEAF;
            case UNRECOGNIZED -> throw new InvalidRequestException(field, "is not a known ObjectKind");
        };
    }

    public static io.treecat.grpc.v1.ObjectKind kind(ObjectKind kind) {
        return switch (kind) {
            case INNER -> io.treecat.grpc.v1.ObjectKind.OBJECT_KIND_INNER;
            case LEAF -> io.treecat.grpc.v1.ObjectKind.OBJECT_KIND_LEAF;
        };
    }

    public static ChildKinds results(ResultKinds results, String field) {
        return switch (results) {
            case RESULT_KINDS_UNSPECIFIED, RESULT_KINDS_BOTH -> ChildKinds.BOTH;
            case RESULT_KINDS_LEAVES -> ChildKinds.LEAVES;
            case RESULT_KINDS_INNER -> ChildKinds.INNER;
            case UNRECOGNIZED -> throw new InvalidRequestException(field, "is not a known ResultKinds");
        };
    }

    public static ResultKinds results(ChildKinds kinds) {
        return switch (kinds) {
            case BOTH -> ResultKinds.RESULT_KINDS_BOTH;
            case LEAVES -> ResultKinds.RESULT_KINDS_LEAVES;
            case INNER -> ResultKinds.RESULT_KINDS_INNER;
        };
    }

    public static TransactionMode mode(io.treecat.grpc.v1.TransactionMode mode, String field) {
        return switch (mode) {
            case TRANSACTION_MODE_READ_ONLY -> TransactionMode.READ_ONLY;
            case TRANSACTION_MODE_READ_WRITE -> TransactionMode.READ_WRITE;
            case TRANSACTION_MODE_UNSPECIFIED ->
                throw new InvalidRequestException(
                        field, "is required: TRANSACTION_MODE_READ_ONLY or TRANSACTION_MODE_READ_WRITE");
            case UNRECOGNIZED -> throw new InvalidRequestException(field, "is not a known TransactionMode");
        };
    }

    public static io.treecat.grpc.v1.TransactionMode mode(TransactionMode mode) {
        return switch (mode) {
            case READ_ONLY -> io.treecat.grpc.v1.TransactionMode.TRANSACTION_MODE_READ_ONLY;
            case READ_WRITE -> io.treecat.grpc.v1.TransactionMode.TRANSACTION_MODE_READ_WRITE;
        };
    }

    // ---- read points and transactions

    public static ReadPoint readPoint(io.treecat.grpc.v1.ReadPoint point, String field) {
        return switch (point.getPointCase()) {
            case VID -> {
                if (point.getVid() < 0) {
                    throw new InvalidRequestException(field + ".vid", "must not be negative");
                }
                yield ReadPoint.vid(point.getVid());
            }
            case SNAPSHOT -> {
                if (point.getSnapshot().isEmpty()) {
                    throw new InvalidRequestException(field + ".snapshot", "must not be empty");
                }
                yield ReadPoint.snapshot(point.getSnapshot());
            }
            case AS_OF_TIME -> ReadPoint.time(ReadPoint.parseTime(point.getAsOfTime(), field + ".as_of_time"));
            case POINT_NOT_SET -> ReadPoint.LATEST;
        };
    }

    /** A history bound: a vid, a time, or (unset) none. */
    public static ReadPoint bound(HistoryBound bound, String field) {
        return switch (bound.getBoundCase()) {
            case VID -> {
                if (bound.getVid() < 0) {
                    throw new InvalidRequestException(field + ".vid", "must not be negative");
                }
                yield ReadPoint.vid(bound.getVid());
            }
            case TIME -> ReadPoint.time(ReadPoint.parseTime(bound.getTime(), field + ".time"));
            case BOUND_NOT_SET -> null;
        };
    }

    public static HistoryBound bound(ReadPoint point) {
        HistoryBound.Builder wire = HistoryBound.newBuilder();
        if (point instanceof ReadPoint.AtVid atVid) {
            wire.setVid(atVid.vid());
        } else if (point instanceof ReadPoint.AtTime atTime) {
            wire.setTime(atTime.time().toString());
        }
        return wire.build();
    }

    public static io.treecat.grpc.v1.CommitEntry commit(CommitRecord record) {
        io.treecat.grpc.v1.CommitEntry.Builder entry = io.treecat.grpc.v1.CommitEntry.newBuilder()
                .setVid(record.vid())
                .setCommitTime(record.commitTime().toString())
                .setPrincipal(record.origin().principalName().orElse(""))
                .setInterface(record.origin().interfaceName())
                .setOperation(record.origin().operation())
                .setAdded(record.added())
                .setUpdated(record.updated())
                .setRemoved(record.removed())
                .setCompact(record.compact());
        for (io.treecat.core.history.PathChange change : record.changes()) {
            entry.addChanges(io.treecat.grpc.v1.PathChange.newBuilder()
                    .setPath(change.path().toString())
                    .setChange(
                            switch (change.change()) {
                                case ADDED -> ChangeKind.CHANGE_KIND_ADDED;
                                case UPDATED -> ChangeKind.CHANGE_KIND_UPDATED;
                                case REMOVED -> ChangeKind.CHANGE_KIND_REMOVED;
                            })
                    .setKind(kind(change.objectKind())));
        }
        record.prefixes().forEach(prefix -> entry.addPrefixes(prefix.toString()));
        return entry.build();
    }

    /** A change-feed filter from a Subscribe request: a subtree, change kinds and object kinds (none named: all). */
    public static io.treecat.core.feed.ChangeFilter feedFilter(io.treecat.grpc.v1.SubscribeRequest request) {
        java.util.Set<io.treecat.core.history.ChangeKind> changes =
                java.util.EnumSet.noneOf(io.treecat.core.history.ChangeKind.class);
        for (ChangeKind kind : request.getChangeKindsList()) {
            changes.add(
                    switch (kind) {
                        case CHANGE_KIND_ADDED -> io.treecat.core.history.ChangeKind.ADDED;
                        case CHANGE_KIND_UPDATED -> io.treecat.core.history.ChangeKind.UPDATED;
                        case CHANGE_KIND_REMOVED -> io.treecat.core.history.ChangeKind.REMOVED;
                        case CHANGE_KIND_UNSPECIFIED, UNRECOGNIZED ->
                            throw new InvalidRequestException(
                                    "change_kinds", "holds a value that is not ADDED, UPDATED or REMOVED");
                    });
        }
        java.util.Set<ObjectKind> objectKinds = java.util.EnumSet.noneOf(ObjectKind.class);
        for (io.treecat.grpc.v1.ObjectKind kind : request.getObjectKindsList()) {
            objectKinds.add(
                    switch (kind) {
                        case OBJECT_KIND_INNER -> ObjectKind.INNER;
                        case OBJECT_KIND_LEAF -> ObjectKind.LEAF;
                        case OBJECT_KIND_UNSPECIFIED, UNRECOGNIZED ->
                            throw new InvalidRequestException(
                                    "object_kinds", "holds a value that is not INNER or LEAF");
                    });
        }
        return new io.treecat.core.feed.ChangeFilter(
                request.getPath().isEmpty() ? ObjectPath.ROOT : path(request.getPath(), "path"), changes, objectKinds);
    }

    public static io.treecat.grpc.v1.ReadPoint readPoint(ReadPoint point) {
        io.treecat.grpc.v1.ReadPoint.Builder wire = io.treecat.grpc.v1.ReadPoint.newBuilder();
        if (point instanceof ReadPoint.AtVid atVid) {
            wire.setVid(atVid.vid());
        } else if (point instanceof ReadPoint.AtSnapshot snapshot) {
            wire.setSnapshot(snapshot.name());
        } else if (point instanceof ReadPoint.AtTime atTime) {
            wire.setAsOfTime(atTime.time().toString());
        }
        return wire.build();
    }

    /** An optional transaction id: empty means none. */
    public static Optional<TransactionId> transaction(String text) {
        return text.isEmpty() ? Optional.empty() : Optional.of(TransactionId.valueOf(text));
    }

    // ---- objects and snapshots

    public static io.treecat.grpc.v1.CatalogObject object(CatalogObject object) {
        return io.treecat.grpc.v1.CatalogObject.newBuilder()
                // Encoded once by the JDK (a copy, for ASCII) rather than measured and encoded by protobuf's own coder.
                .setPathBytes(
                        UnsafeByteOperations.unsafeWrap(object.path().toString().getBytes(StandardCharsets.UTF_8)))
                .setKind(kind(object.kind()))
                .setBson(bytes(object.value()))
                .setVersion(object.version())
                .build();
    }

    /** An object the server sent; trusted, so its value stays raw and is parsed only when read. */
    public static CatalogObject object(io.treecat.grpc.v1.CatalogObject object) {
        ObjectKind kind =
                object.getKind() == io.treecat.grpc.v1.ObjectKind.OBJECT_KIND_LEAF ? ObjectKind.LEAF : ObjectKind.INNER;
        BsonDocument value = object.getBson().isEmpty()
                ? new BsonDocument()
                : new RawBsonDocument(object.getBson().toByteArray());
        return new CatalogObject(ObjectPath.parse(object.getPath()), kind, value, object.getVersion());
    }

    public static io.treecat.grpc.v1.NamedSnapshot snapshot(NamedSnapshot snapshot) {
        return io.treecat.grpc.v1.NamedSnapshot.newBuilder()
                .setName(snapshot.name())
                .setVid(snapshot.vid())
                .build();
    }

    public static NamedSnapshot snapshot(io.treecat.grpc.v1.NamedSnapshot snapshot) {
        return new NamedSnapshot(snapshot.getName(), snapshot.getVid());
    }

    // ---- write sets

    /**
     * The write set of a commit request.
     *
     * @param resolve turns a clone's read point into a vid (the newest when unset)
     * @return empty when there are no writes
     */
    public static Optional<WriteSet> writeSet(
            List<io.treecat.grpc.v1.WriteOp> writes, ToLongFunction<ReadPoint> resolve) {
        if (writes.isEmpty()) {
            return Optional.empty();
        }
        List<WriteOp> ops = new ArrayList<>(writes.size());
        for (int i = 0; i < writes.size(); i++) {
            ops.add(writeOp(writes.get(i), "writes[" + i + "]", resolve));
        }
        return Optional.of(new WriteSet(ops));
    }

    private static WriteOp writeOp(io.treecat.grpc.v1.WriteOp write, String field, ToLongFunction<ReadPoint> resolve) {
        return switch (write.getOpCase()) {
            case ADD -> {
                AddOp add = write.getAdd();
                yield new WriteOp.Add(
                        path(add.getPath(), field + ".add.path"),
                        kind(add.getKind(), field + ".add.kind"),
                        document(add.getBson(), field + ".add.bson"));
            }
            case UPDATE -> {
                UpdateOp update = write.getUpdate();
                yield new WriteOp.Update(
                        path(update.getPath(), field + ".update.path"),
                        kind(update.getKind(), field + ".update.kind"),
                        document(update.getBson(), field + ".update.bson"));
            }
            case MERGE -> {
                MergeOp merge = write.getMerge();
                yield new WriteOp.Merge(
                        path(merge.getPath(), field + ".merge.path"),
                        document(merge.getDeltaBson(), field + ".merge.delta_bson"));
            }
            case REMOVE -> new WriteOp.Remove(path(write.getRemove().getPath(), field + ".remove.path"));
            case CLONE -> {
                CloneOp clone = write.getClone();
                ObjectPath source = path(clone.getSource(), field + ".clone.source");
                ObjectPath target = path(clone.getPath(), field + ".clone.path");
                yield new WriteOp.Clone(
                        source,
                        target,
                        resolve.applyAsLong(readPoint(clone.getSourceReadPoint(), field + ".clone.source_read_point")));
            }
            case OP_NOT_SET ->
                throw new InvalidRequestException(field, "has no op: set one of add, update, merge, remove, clone");
        };
    }

    /** The wire form of a write set; a clone names its source vid exactly. */
    public static List<io.treecat.grpc.v1.WriteOp> writes(WriteSet writes) {
        List<io.treecat.grpc.v1.WriteOp> wire = new ArrayList<>(writes.ops().size());
        for (WriteOp op : writes.ops()) {
            io.treecat.grpc.v1.WriteOp.Builder write = io.treecat.grpc.v1.WriteOp.newBuilder();
            if (op instanceof WriteOp.Add add) {
                write.setAdd(AddOp.newBuilder()
                        .setPath(add.path().toString())
                        .setKind(kind(add.kind()))
                        .setBson(bytes(add.value())));
            } else if (op instanceof WriteOp.Update update) {
                write.setUpdate(UpdateOp.newBuilder()
                        .setPath(update.path().toString())
                        .setKind(kind(update.kind()))
                        .setBson(bytes(update.value())));
            } else if (op instanceof WriteOp.Merge merge) {
                write.setMerge(
                        MergeOp.newBuilder().setPath(merge.path().toString()).setDeltaBson(bytes(merge.delta())));
            } else if (op instanceof WriteOp.Remove remove) {
                write.setRemove(RemoveOp.newBuilder().setPath(remove.path().toString()));
            } else if (op instanceof WriteOp.Clone clone) {
                write.setClone(CloneOp.newBuilder()
                        .setSource(clone.source().toString())
                        .setPath(clone.path().toString())
                        .setSourceReadPoint(readPoint(ReadPoint.vid(clone.sourceVid()))));
            }
            wire.add(write.build());
        }
        return wire;
    }

    /** Core's exception again, its message prefixed with the request field, its context kept. */
    static CatalogException withField(CatalogException e, String field) {
        CatalogException named = new CatalogException(e.code(), field + ": " + e.getMessage(), e);
        e.context().forEach(named::with);
        return named.with("field", field);
    }
}
