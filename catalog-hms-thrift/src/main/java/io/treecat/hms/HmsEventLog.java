package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.history.CommitPage;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.version.ReadPins;
import io.treecat.lakehouse.model.HiveEventCheckpointEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.thrift.TException;

/**
 * Hive's notification log, served from the commit log: the events of each commit ({@link HmsCommitEvents}) in vid
 * order, numbered densely. The event ids are a count: the {@code i}-th event (from 1) of the commit at vid {@code v}
 * has the id {@code (events of every commit before v) + i}. Hive's own client requires exactly this: {@code
 * HiveMetaStoreClient.getNextNotification} throws "Notification events are missing in the meta store." when an id is
 * not the one after the last, so a sparse scheme (vid × k + i) would break every client that follows the log. The
 * events of a commit are a pure function of its record and the tree at its vid and the one before.
 *
 * <p><b>The index</b> is a list of checkpoints: a vid and the number of events of every commit before it. Every
 * {@value #STRIDE} commit records counted, one is kept in memory (a read starts at the nearest one), and one is saved
 * durably ({@link #saveIfDue}, called by {@link HmsEventIndexer} as commits are published): in the tree, under Hive's
 * default catalog ({@code /<catalog>/.hive_events}, {@link HmsEventCheckpointStore#inTree}), so it is written by one
 * atomic commit like any other state, read at any vid, and replicated with the tree. A saved checkpoint is itself a
 * commit, of a hidden path, which makes no Hive event; one is saved per {@value #STRIDE} records and at a clean
 * stop (if events were counted since the last), so saving never feeds itself. At start ({@link #open}) the saved checkpoints are loaded and only the commits since the newest are
 * counted again: after a crash between a commit and its checkpoint, only that tail.
 *
 * <p><b>Retention.</b> The count of events before the oldest commit kept must outlive the commits, or every id would
 * move when the collector removes them. So the log pins ({@link ReadPins}, as change-feed subscribers do) the vid
 * before the first commit with Hive events that no saved checkpoint counts (at most the newest vid counted): the
 * collector never removes a commit whose events are not counted durably, nor the tree they are rebuilt from. Commits
 * without Hive events (most of a catalog's that are not Hive's) do not hold it back: the count before them is the
 * saved one. If the index lags (or is paused), collection waits. The oldest event served ({@link #firstEventId}) is
 * the first of the oldest checkpoint whose commits can still be read (its vid above the horizon); a request from
 * before it is answered from it, as Hive's metastore answers a request for events its cleaner removed (its client
 * then reports the gap).
 *
 * <p>When the commits after the newest saved checkpoint were collected, the count goes on from the oldest commit
 * still readable with the saved count: right while the log held its pin (only commits without events were passed).
 * If they were collected while no HMS listener ran (the store opened without one), their events were never counted:
 * they are not reported, and after a crash the ids of the events counted since the newest checkpoint (fewer than
 * {@value #STRIDE} records; a clean stop saves everything) are given again. With no checkpoint at all (the first start
 * with this index), the count starts at 0 from the oldest commit readable.
 */
final class HmsEventLog implements AutoCloseable {
    /** Commit records between two checkpoints of the index, in memory and saved. */
    static final int STRIDE = 128;

    /** Commit records whose events are kept in memory, most recently used. */
    private static final int CACHED_RECORDS = 256;

    /** Records one {@link #saveIfDue} counts at most before it saves: a long lag is saved as it is counted. */
    private static final int STRIDES_PER_SAVE = 8;

    private final Supplier<CatalogService> service;
    private final HmsCommitEvents events;
    private final HmsEventCheckpointStore store;
    private final int stride;

    /** Checkpoints: {@code checkpointVids[i]}'s record has {@code checkpointEvents[i]} events before it. */
    private long[] checkpointVids = new long[64];

    private long[] checkpointEvents = new long[64];
    private int checkpoints;
    private boolean opened;
    private boolean closed;
    /** Every commit up to this vid is counted. */
    private long indexedVid;
    /** The events of the commits up to {@link #indexedVid}: the current event id. */
    private long indexedEvents;
    /** Records counted since the last in-memory checkpoint. */
    private long sinceCheckpoint;
    /** Records counted since {@link #open}: what a restart had to count again. */
    private long recordsCounted;
    /** {@link #recordsCounted} when the newest saved checkpoint was taken. */
    private long countedAtSave;
    /** The newest saved checkpoint. */
    private HiveEventCheckpointEntry saved;
    /** The first checkpoint, (1, 0), until the first save saves it with its own (nothing is saved at open). */
    private volatile HiveEventCheckpointEntry unsavedStart;
    /**
     * Holds the vid before the first commit with events that no saved checkpoint counts (at most the newest counted
     * vid), so the collector keeps every commit whose events are not counted durably.
     */
    private ReadPins.Pin pin;
    /** The first vid at or after {@link #saved}'s with Hive events, counted; {@code Long.MAX_VALUE} if none yet. */
    private long firstUnsavedEventVid = Long.MAX_VALUE;
    /** The same after the checkpoint being saved, which becomes {@link #firstUnsavedEventVid} when it is saved. */
    private long firstEventVidAfterNext = Long.MAX_VALUE;

    private final Map<Long, List<HmsCommitEvents.Event>> cache = new LinkedHashMap<>(CACHED_RECORDS, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, List<HmsCommitEvents.Event>> eldest) {
            return size() > CACHED_RECORDS;
        }
    };

    /** A log whose checkpoints live in memory only, every {@code stride} records (tests use a short one). */
    HmsEventLog(Supplier<CatalogService> service, HmsCommitEvents events, int stride) {
        this(service, events, HmsEventCheckpointStore.inMemory(), stride);
    }

    HmsEventLog(Supplier<CatalogService> service, HmsCommitEvents events, HmsEventCheckpointStore store, int stride) {
        this.service = requireNonNull(service, "service is null");
        this.events = requireNonNull(events, "events is null");
        this.store = requireNonNull(store, "store is null");
        if (stride < 1) {
            throw new IllegalArgumentException("stride must be positive: " + stride);
        }
        this.stride = stride;
    }

    /**
     * Loads the saved checkpoints and pins the newest one's commits; the first read opens the log if this was not
     * called. Saves the starting checkpoint if there was none, or if the commits after the newest were collected.
     */
    synchronized void open() throws TException {
        if (opened) {
            return;
        }
        if (closed) {
            throw new IllegalStateException("The notification log is closed");
        }
        ReadPins pins = service.get().tree().pins();
        Optional<HiveEventCheckpointEntry> newest = store.newest();
        ReadPins.Pin held = newest.isPresent() ? pins.pin(newest.get().vid() - 1) : null;
        HiveEventCheckpointEntry start;
        if (held != null) {
            start = newest.get();
        } else {
            // No checkpoint, or the commits after it were collected: count from the oldest commit whose events can
            // be rebuilt (the tree at the vid before it is readable). While the log ran, the collector passed only
            // commits without events (the pin), so the count there is the saved one; commits collected while no
            // HMS listener held them are not counted (docs/hms-thrift.md, "When no HMS listener held the log").
            long horizon;
            do {
                horizon = pins.horizon();
                held = pins.pin(horizon);
            } while (held == null);
            start = HiveEventCheckpointEntry.of(
                    horizon + 1,
                    newest.map(HiveEventCheckpointEntry::eventsBefore).orElse(0L));
            // Saved at once unless it is where every count starts anyway (nothing saved, nothing collected): a store
            // the HMS listener opens for the first time gets no commit of its own until it has events.
            if (newest.isPresent() || horizon > 0) {
                try {
                    start = store.save(start, horizon);
                } catch (TException | RuntimeException e) {
                    held.close();
                    throw e;
                }
            } else {
                unsavedStart = start;
            }
            if (start.vid() - 1 != horizon) {
                // Another writer saved one meanwhile: start from it.
                held.close();
                held = pins.pin(start.vid() - 1);
                if (held == null) {
                    throw new IllegalStateException("The notification log's checkpoint at vid " + start.vid()
                            + " was collected while it was being opened");
                }
            }
        }
        pin = held;
        saved = start;
        for (HiveEventCheckpointEntry kept : store.all()) {
            // When the start is not the newest saved, the older counts lead to commits that are gone.
            if (kept.vid() >= start.vid() || start.equals(newest.orElse(null))) {
                insertCheckpoint(kept.vid(), kept.eventsBefore());
            }
        }
        insertCheckpoint(start.vid(), start.eventsBefore());
        indexedVid = start.vid() - 1;
        indexedEvents = start.eventsBefore();
        sinceCheckpoint = 0;
        opened = true;
    }

    /** Releases the pin: the collector may then remove what the index has not counted durably. */
    @Override
    public synchronized void close() {
        closed = true;
        opened = false;
        if (pin != null) {
            pin.close();
            pin = null;
        }
    }

    /** The id of the newest event: Hive's {@code get_current_notificationEventId} (0 when there is none). */
    long currentEventId() throws TException {
        synchronized (this) {
            catchUp(Long.MAX_VALUE);
            return indexedEvents;
        }
    }

    /**
     * The id of the oldest event the log can answer: the first after the oldest checkpoint whose commits are still
     * readable. The one place where events older than the log keeps are decided.
     */
    long firstEventId() throws TException {
        synchronized (this) {
            catchUp(Long.MAX_VALUE);
            int first = firstReadable(service.get().tree().horizon());
            return (first < checkpoints ? checkpointEvents[first] : indexedEvents) + 1;
        }
    }

    /** Commit records counted since the log was opened: after a restart, the tail since the newest checkpoint. */
    synchronized long recordsCounted() {
        return recordsCounted;
    }

    /** The vid the log pins, the horizon's limit; -1 when it holds none. */
    synchronized long pinnedVid() {
        return pin == null ? -1 : pin.vid();
    }

    /** The newest checkpoint saved (or loaded), if the log is open. */
    synchronized Optional<HiveEventCheckpointEntry> saved() {
        return Optional.ofNullable(saved);
    }

    /**
     * Counts what was published since the last call (at most {@value #STRIDES_PER_SAVE} strides of it) and saves a
     * checkpoint, moving the pin to it, once {@link #stride} records were counted since the newest saved one; with
     * {@code force} (a clean stop), also when events were counted that no saved checkpoint counts. A checkpoint's own
     * commit is one record and makes no event, so saving never makes the next save due by itself.
     *
     * @return whether everything published was counted
     */
    boolean saveIfDue(boolean force) throws TException {
        HiveEventCheckpointEntry next;
        long countedAtNext;
        boolean done;
        synchronized (this) {
            done = catchUp(force ? Long.MAX_VALUE : (long) stride * STRIDES_PER_SAVE);
            if (recordsCounted - countedAtSave < stride && !(force && indexedEvents > saved.eventsBefore())) {
                movePin();
                return done;
            }
            next = HiveEventCheckpointEntry.of(indexedVid + 1, indexedEvents);
            countedAtNext = recordsCounted;
            firstEventVidAfterNext = Long.MAX_VALUE;
        }
        // Outside the lock: a save is a commit, and readers go on meanwhile. The checkpoints whose commits are no
        // longer readable (vid at or below the horizon) go with it.
        ReadPins pins = service.get().tree().pins();
        HiveEventCheckpointEntry start = unsavedStart;
        if (start != null) {
            // The first save: the start too, so that after a restart the log still answers from the first event.
            store.save(start, pins.horizon());
            unsavedStart = null;
        }
        store.save(next, pins.horizon());
        synchronized (this) {
            if (closed) {
                return true;
            }
            saved = next;
            countedAtSave = countedAtNext;
            firstUnsavedEventVid = firstEventVidAfterNext;
            insertCheckpoint(next.vid(), next.eventsBefore());
            movePin();
        }
        return done;
    }

    /**
     * Moves the pin forward to the vid before the first commit with events that no saved checkpoint counts (so its
     * events can be rebuilt and counted), and no further than what is counted: commits without Hive events need not
     * be kept, since the count before them is the saved one. A checkpoint at the vid after the pin says so to the
     * reads ({@link #firstEventId}); the in-memory ones it makes redundant (same count) go.
     */
    private void movePin() {
        long target = Math.min(firstUnsavedEventVid - 1, indexedVid);
        if (pin != null && target <= pin.vid()) {
            return;
        }
        // Never refused: the pin held is at or below it, so the horizon is too.
        ReadPins.Pin moved = service.get().tree().pins().pin(target);
        if (moved == null) {
            throw new IllegalStateException("The horizon passed the notification log's pin at "
                    + (pin == null ? "none" : String.valueOf(pin.vid())));
        }
        ReadPins.Pin old = pin;
        pin = moved;
        if (old != null) {
            old.close();
        }
        int from = firstReadable(saved.vid());
        int to = firstReadable(target);
        if (to > from) {
            System.arraycopy(checkpointVids, to, checkpointVids, from, checkpoints - to);
            System.arraycopy(checkpointEvents, to, checkpointEvents, from, checkpoints - to);
            checkpoints -= to - from;
        }
        insertCheckpoint(target + 1, saved.eventsBefore());
    }

    /**
     * Up to {@code max} events with ids above {@code lastEvent} that {@code filter} accepts, oldest first, and no more
     * once their messages reach {@code maxMessageChars} characters (at least one event: a page always moves a follower
     * on). A {@code lastEvent} before the {@link #firstEventId} answers from it.
     */
    List<NotificationEvent> next(long lastEvent, int max, long maxMessageChars, Predicate<NotificationEvent> filter)
            throws TException {
        List<NotificationEvent> found = new ArrayList<>();
        long[] chars = {0};
        walk(lastEvent, Long.MAX_VALUE, event -> {
            if (filter.test(event)) {
                found.add(event);
                chars[0] += event.getMessage().length();
            }
            return found.size() < max && chars[0] < maxMessageChars;
        });
        return found;
    }

    /** How many events with ids in ({@code after}, {@code upTo}] {@code filter} accepts, counting up to {@code limit}. */
    long count(long after, long upTo, long limit, Predicate<NotificationEvent> filter) throws TException {
        if (limit <= 0) {
            return 0;
        }
        long[] counted = {0};
        walk(after, upTo, event -> {
            if (filter.test(event)) {
                counted[0]++;
            }
            return counted[0] < limit;
        });
        return counted[0];
    }

    /** What to do with each event of a walk; false stops it. */
    @FunctionalInterface
    private interface Visitor {
        boolean visit(NotificationEvent event);
    }

    /**
     * Visits the events with ids in ({@code after}, {@code upTo}], from the {@link #firstEventId} at the earliest,
     * oldest first, until the visitor stops. The walk pins the vid before its first record, so the collector cannot
     * remove what it reads; if the horizon passed that vid meanwhile, it starts again from the new first event.
     */
    private void walk(long after, long upTo, Visitor visitor) throws TException {
        while (true) {
            long from;
            long fromVid;
            long eventsBefore;
            long endVid;
            synchronized (this) {
                catchUp(Long.MAX_VALUE);
                int first = firstReadable(service.get().tree().horizon());
                long firstId = (first < checkpoints ? checkpointEvents[first] : indexedEvents) + 1;
                from = Math.max(after, firstId - 1);
                if (from >= indexedEvents || upTo <= from) {
                    return;
                }
                int checkpoint = Math.max(first, lastCheckpointAtOrBefore(from));
                fromVid = checkpointVids[checkpoint];
                eventsBefore = checkpointEvents[checkpoint];
                endVid = indexedVid;
            }
            ReadPins.Pin held = service.get().tree().pins().pin(fromVid - 1);
            if (held == null) {
                continue;
            }
            try {
                walk(from, upTo, fromVid, eventsBefore, endVid, visitor);
                return;
            } finally {
                held.close();
            }
        }
    }

    private void walk(long after, long upTo, long fromVid, long eventsBefore, long endVid, Visitor visitor)
            throws TException {
        CatalogService catalog = service.get();
        long from = fromVid;
        long before = eventsBefore;
        while (from <= endVid) {
            CommitPage page =
                    catalog.listCommits(new CommitQuery(from, endVid, ObjectPath.ROOT, CommitQuery.MAX_LIMIT, false));
            for (CommitRecord record : page.records()) {
                List<HmsCommitEvents.Event> made = eventsOf(record);
                if (before + made.size() > after) {
                    for (int i = 0; i < made.size(); i++) {
                        long id = before + i + 1;
                        if (id > upTo) {
                            return;
                        }
                        if (id > after && !visitor.visit(notification(id, made.get(i)))) {
                            return;
                        }
                    }
                }
                before += made.size();
            }
            if (page.nextVid().isEmpty()) {
                return;
            }
            from = page.nextVid().getAsLong();
        }
    }

    /** The index of the first checkpoint whose commits can be read (its vid above the horizon); {@link #checkpoints} if none. */
    private int firstReadable(long horizon) {
        int low = 0;
        int high = checkpoints;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (checkpointVids[middle] > horizon) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        return low;
    }

    /** The index of the last checkpoint with at most {@code events} events before it. */
    private int lastCheckpointAtOrBefore(long events) {
        int low = 0;
        int high = checkpoints - 1;
        while (low < high) {
            int middle = (low + high + 1) >>> 1;
            if (checkpointEvents[middle] <= events) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        return low;
    }

    /**
     * Counts the events of the commits published since the last call, at most {@code maxRecords} of them; opens the
     * log first if it is not open.
     *
     * @return whether every commit published was counted
     */
    private boolean catchUp(long maxRecords) throws TException {
        open();
        CatalogService catalog = service.get();
        long newest = catalog.lastVid();
        long from = indexedVid + 1;
        long counted = 0;
        while (from <= newest) {
            CommitPage page =
                    catalog.listCommits(new CommitQuery(from, newest, ObjectPath.ROOT, CommitQuery.MAX_LIMIT, false));
            for (CommitRecord record : page.records()) {
                if (sinceCheckpoint >= stride) {
                    insertCheckpoint(record.vid(), indexedEvents);
                    sinceCheckpoint = 0;
                }
                int made = eventsOf(record).size();
                if (made > 0) {
                    firstUnsavedEventVid = Math.min(firstUnsavedEventVid, record.vid());
                    firstEventVidAfterNext = Math.min(firstEventVidAfterNext, record.vid());
                }
                indexedEvents += made;
                indexedVid = record.vid();
                sinceCheckpoint++;
                recordsCounted++;
                if (++counted >= maxRecords) {
                    return false;
                }
            }
            if (page.nextVid().isEmpty()) {
                break;
            }
            from = page.nextVid().getAsLong();
        }
        // Vids without a record (a store older than the log) make no events.
        indexedVid = Math.max(indexedVid, newest);
        return true;
    }

    /** Adds a checkpoint in vid order (a saved one may come after in-memory ones with later vids). */
    private void insertCheckpoint(long vid, long eventsBefore) {
        int at = firstReadable(vid - 1);
        if (at < checkpoints && checkpointVids[at] == vid) {
            return;
        }
        if (checkpoints == checkpointVids.length) {
            checkpointVids = Arrays.copyOf(checkpointVids, checkpoints * 2);
            checkpointEvents = Arrays.copyOf(checkpointEvents, checkpoints * 2);
        }
        System.arraycopy(checkpointVids, at, checkpointVids, at + 1, checkpoints - at);
        System.arraycopy(checkpointEvents, at, checkpointEvents, at + 1, checkpoints - at);
        checkpointVids[at] = vid;
        checkpointEvents[at] = eventsBefore;
        checkpoints++;
    }

    private List<HmsCommitEvents.Event> eventsOf(CommitRecord record) throws TException {
        synchronized (cache) {
            List<HmsCommitEvents.Event> cached = cache.get(record.vid());
            if (cached != null) {
                return cached;
            }
        }
        List<HmsCommitEvents.Event> made = events.of(record);
        synchronized (cache) {
            cache.put(record.vid(), made);
        }
        return made;
    }

    private static NotificationEvent notification(long id, HmsCommitEvents.Event event) {
        NotificationEvent notification = new NotificationEvent(id, event.time(), event.type(), event.message());
        notification.setCatName(event.catalog());
        notification.setDbName(event.db());
        if (event.table() != null) {
            notification.setTableName(event.table());
        }
        notification.setMessageFormat(HmsEventMessages.FORMAT);
        return notification;
    }
}
