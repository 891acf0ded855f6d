package io.treecat.core.txn;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.PathKeys;
import io.treecat.core.version.ObjectChange;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The in-memory record of recent commits that optimistic validation reads (paper §5.2).
 *
 * <ul>
 *   <li><b>VersionMap</b>: parent path → the newest vid that changed one of its children. A scan of a
 *       parent whose entry is at most the scanner's read vid cannot conflict, without looking further.
 *   <li><b>LogIndex</b>: a lock-free skip list ordered by parent path, then vid, holding each
 *       change's before- and after-image, so validation seeks straight to the writes that fall in one
 *       scanned range after one read vid.
 * </ul>
 *
 * <p>It is complete for every vid above {@link #floor()}: a transaction reading at an older vid
 * cannot be validated and must not be started. {@link #collect} drops what no active transaction
 * can need.
 */
class ChangeLog {
    /** One change to a child of a parent, committed at {@code vid}. */
    record LogKey(byte[] parentKey, long vid, int sequence) {}

    private static final Comparator<LogKey> ORDER = (a, b) -> {
        int byParent = Arrays.compareUnsigned(a.parentKey(), b.parentKey());
        if (byParent != 0) {
            return byParent;
        }
        int byVid = Long.compare(a.vid(), b.vid());
        return byVid != 0 ? byVid : Integer.compare(a.sequence(), b.sequence());
    };

    private final ConcurrentHashMap<ObjectPath, Long> versionMap = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<LogKey, ObjectChange> logIndex = new ConcurrentSkipListMap<>(ORDER);
    private volatile long floor;
    /** A commit at or below this vid was written without its changes recorded here (see {@link #untrackedThrough(long)}). */
    private volatile long untrackedThrough;

    ChangeLog(long floor) {
        this.floor = floor;
    }

    /** Records a commit's changes; called in commit order, before any later commit is validated. */
    void record(long vid, List<ObjectChange> changes) {
        int sequence = 0;
        for (ObjectChange change : changes) {
            ObjectPath parent = change.path().parent();
            logIndex.put(new LogKey(PathKeys.pathKey(parent), vid, sequence++), change);
            versionMap.merge(parent, vid, Math::max);
        }
    }

    /**
     * Forgets the changes recorded above {@code vid}: a replicated group commit records its commits before
     * the group agreed on them, so that each validates against the ones before it, and takes them back if
     * the group did not. The version map keeps its newer vids: it only tells validation where to look.
     */
    void discardAfter(long vid) {
        logIndex.keySet().removeIf(key -> key.vid() > vid);
    }

    /** The newest vid that changed a child of {@code parent}, or -1 if none is remembered. */
    long newestChildVid(ObjectPath parent) {
        return versionMap.getOrDefault(parent, -1L);
    }

    /** The changes to children of {@code parent} committed after {@code afterVid}, in vid order. */
    Collection<ObjectChange> changesAfter(ObjectPath parent, long afterVid) {
        byte[] parentKey = PathKeys.pathKey(parent);
        return logIndex.subMap(
                        new LogKey(parentKey, afterVid + 1, Integer.MIN_VALUE),
                        true,
                        new LogKey(parentKey, Long.MAX_VALUE, Integer.MAX_VALUE),
                        true)
                .values();
    }

    /** Every vid above this one is in the log. */
    long floor() {
        return floor;
    }

    /**
     * Marks that the commit of {@code vid} is in the store but its changes could not be recorded: a
     * transaction that read before it cannot be validated and must conflict.
     */
    void untrackedThrough(long vid) {
        untrackedThrough = Math.max(untrackedThrough, vid);
    }

    /**
     * Whether every change after {@code readVid} is here: false once {@link #collect} dropped some
     * of them, or a commit after it was never recorded.
     */
    boolean tracksChangesAfter(long readVid) {
        return readVid >= floor && readVid >= untrackedThrough;
    }

    /**
     * Forgets changes at or below {@code watermark}, the oldest read vid any active read-write
     * transaction holds: validation only ever looks above its own read vid.
     */
    void collect(long watermark) {
        if (watermark <= floor) {
            return;
        }
        floor = watermark;
        logIndex.keySet().removeIf(key -> key.vid() <= watermark);
        for (Map.Entry<ObjectPath, Long> entry : versionMap.entrySet()) {
            if (entry.getValue() <= watermark) {
                versionMap.remove(entry.getKey(), entry.getValue());
            }
        }
    }

    int size() {
        return logIndex.size();
    }
}
