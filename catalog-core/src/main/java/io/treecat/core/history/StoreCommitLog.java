package io.treecat.core.history;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.core.storage.KeySpace;
import io.treecat.core.storage.KvBatch;
import io.treecat.core.storage.KvIterator;
import io.treecat.core.storage.KvStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The commit log kept in the store's own {@link KeySpace#COMMIT_LOG} key space, one record per
 * vid under its big-endian vid, written in the commit's batch. Vids are dense from the oldest
 * record on (every commit takes the next vid), so a time resolves by binary search over vids:
 * commit times never decrease with the vid.
 */
public final class StoreCommitLog implements CommitLog {
    /** Records a filtered read may skip before it returns a shorter page with a continuation. */
    static final int SCAN_BUDGET = 10_000;

    private final KvStore store;
    private final Clock clock;
    private final LongSupplier publishedVid;
    /** The time of the newest record appended, so the next is never earlier. */
    private final AtomicLong lastTime = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param publishedVid the newest vid readers may see; records above it are not yet durable
     */
    public StoreCommitLog(KvStore store, Clock clock, LongSupplier publishedVid) {
        this.store = requireNonNull(store, "store is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.publishedVid = requireNonNull(publishedVid, "publishedVid is null");
        newest().ifPresent(record -> lastTime.set(record.commitTimeMillis()));
    }

    /**
     * Notes a record another node appended (a replicated commit this node installed), so that a
     * record this node appends later, as leader, is never earlier than it.
     */
    public void observed(CommitRecord record) {
        lastTime.accumulateAndGet(record.commitTimeMillis(), Math::max);
    }

    @Override
    public CommitRecord append(CommitEntry entry, KvBatch batch) {
        long time = lastTime.accumulateAndGet(clock.millis(), Math::max);
        CommitRecord record = summarize(entry, time);
        batch.put(KeySpace.COMMIT_LOG, CommitRecordCodec.key(entry.vid()), CommitRecordCodec.encode(record));
        return record;
    }

    /** A full record, or a compact one for bulk-load chunks and commits of many changes. */
    static CommitRecord summarize(CommitEntry entry, long time) {
        int added = 0;
        int updated = 0;
        int removed = 0;
        for (PathChange change : entry.changes()) {
            switch (change.change()) {
                case ADDED -> added++;
                case UPDATED -> updated++;
                case REMOVED -> removed++;
            }
        }
        boolean compact =
                entry.changes().size() > FULL_RECORD_LIMIT || entry.origin().sameOperation(CommitOrigin.LOAD_CHUNK);
        if (!compact) {
            List<PathChange> sorted = new ArrayList<>(entry.changes());
            sorted.sort(Comparator.comparing(PathChange::path));
            return new CommitRecord(
                    entry.vid(), time, entry.origin(), false, added, updated, removed, sorted, List.of());
        }
        return new CommitRecord(
                entry.vid(), time, entry.origin(), true, added, updated, removed, List.of(), prefixes(entry));
    }

    /**
     * The parents of the touched paths, shortened deepest first until at most {@link
     * CommitRecord#MAX_PREFIXES} remain: every touched path lies under one of them.
     */
    private static List<ObjectPath> prefixes(CommitEntry entry) {
        Set<ObjectPath> prefixes = new TreeSet<>();
        for (PathChange change : entry.changes()) {
            ObjectPath path = change.path();
            prefixes.add(path.isRoot() ? path : path.parent());
        }
        while (prefixes.size() > CommitRecord.MAX_PREFIXES) {
            int deepest = prefixes.stream().mapToInt(ObjectPath::depth).max().orElse(0);
            Set<ObjectPath> shorter = new TreeSet<>();
            for (ObjectPath prefix : prefixes) {
                shorter.add(prefix.depth() == deepest ? prefix.parent() : prefix);
            }
            prefixes = shorter;
        }
        // A prefix under another one adds nothing.
        List<ObjectPath> result = new ArrayList<>();
        for (ObjectPath prefix : prefixes) {
            if (result.stream().noneMatch(kept -> kept.isAncestorOrSelf(prefix))) {
                result.add(prefix);
            }
        }
        return result;
    }

    @Override
    public Optional<CommitRecord> find(long vid) {
        if (vid < 1 || vid > publishedVid.getAsLong()) {
            return Optional.empty();
        }
        byte[] value = store.get(KeySpace.COMMIT_LOG, CommitRecordCodec.key(vid));
        return value == null ? Optional.empty() : Optional.of(CommitRecordCodec.decode(value));
    }

    @Override
    public CommitPage read(CommitQuery query) {
        long newest = Math.min(query.toVid(), publishedVid.getAsLong());
        long from = Math.max(query.fromVid(), 1);
        return query.newestFirst() ? readBackward(query, from, newest) : readForward(query, from, newest);
    }

    private CommitPage readForward(CommitQuery query, long from, long to) {
        List<CommitRecord> records = new ArrayList<>();
        if (from > to) {
            return new CommitPage(records, OptionalLong.empty());
        }
        int scanned = 0;
        try (KvIterator iterator =
                store.iterator(KeySpace.COMMIT_LOG, CommitRecordCodec.key(from), CommitRecordCodec.key(to + 1))) {
            for (iterator.seek(CommitRecordCodec.key(from)); iterator.isValid(); iterator.next()) {
                long vid = CommitRecordCodec.vidOfKey(iterator.key());
                if (records.size() == query.limit() || scanned == SCAN_BUDGET) {
                    return new CommitPage(records, OptionalLong.of(vid));
                }
                scanned++;
                CommitRecord record = CommitRecordCodec.decode(iterator.value());
                if (record.touches(query.prefix())) {
                    records.add(record);
                }
            }
        }
        return new CommitPage(records, OptionalLong.empty());
    }

    /** Newest first, by point reads: vids are dense from the oldest record on. */
    private CommitPage readBackward(CommitQuery query, long from, long to) {
        List<CommitRecord> records = new ArrayList<>();
        long oldest = oldest().map(CommitRecord::vid).orElse(Long.MAX_VALUE);
        long low = Math.max(from, oldest);
        int scanned = 0;
        for (long vid = to; vid >= low; vid--) {
            if (records.size() == query.limit() || scanned == SCAN_BUDGET) {
                return new CommitPage(records, OptionalLong.of(vid));
            }
            scanned++;
            byte[] value = store.get(KeySpace.COMMIT_LOG, CommitRecordCodec.key(vid));
            if (value != null) {
                CommitRecord record = CommitRecordCodec.decode(value);
                if (record.touches(query.prefix())) {
                    records.add(record);
                }
            }
        }
        return new CommitPage(records, OptionalLong.empty());
    }

    @Override
    public OptionalLong vidAt(long epochMillis) {
        Optional<CommitRecord> oldest = oldest();
        if (oldest.isEmpty() || oldest.get().commitTimeMillis() > epochMillis) {
            return OptionalLong.empty();
        }
        // Invariant: the record at low was committed at or before the time; find the last such vid.
        long low = oldest.get().vid();
        long high = publishedVid.getAsLong();
        while (low < high) {
            long mid = low + (high - low + 1) / 2;
            Optional<CommitRecord> record = find(mid);
            if (record.isPresent() && record.get().commitTimeMillis() <= epochMillis) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return OptionalLong.of(low);
    }

    @Override
    public Optional<CommitRecord> oldest() {
        long published = publishedVid.getAsLong();
        try (KvIterator iterator = store.iterator(KeySpace.COMMIT_LOG, null, CommitRecordCodec.key(published + 1))) {
            iterator.seek(CommitRecordCodec.key(0));
            return iterator.isValid() ? Optional.of(CommitRecordCodec.decode(iterator.value())) : Optional.empty();
        }
    }

    @Override
    public Optional<CommitRecord> newest() {
        return find(publishedVid.getAsLong());
    }
}
