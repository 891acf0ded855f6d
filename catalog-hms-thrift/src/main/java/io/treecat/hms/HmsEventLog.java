package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.history.CommitPage;
import io.treecat.core.history.CommitQuery;
import io.treecat.core.history.CommitRecord;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.thrift.TException;

/**
 * Hive's notification log, served from the commit log: the events of each commit ({@link HmsCommitEvents}) in vid
 * order, numbered densely from 1. The event ids are a count: the {@code i}-th event (from 1) of the commit at vid
 * {@code v} has the id {@code (events of every commit before v, from the oldest record of the log) + i}. Hive's own
 * client requires exactly this: {@code HiveMetaStoreClient.getNextNotification} throws "Notification events are
 * missing in the meta store." when an id is not the one after the last, so a sparse scheme (vid × k + i) would break
 * every client that follows the log. The events of a commit are a pure function of its record and the tree, so the
 * count, and every id, is the same after a restart.
 *
 * <p>The ids are found through an index kept in memory and built on first use: a checkpoint every {@value #STRIDE}
 * commit records (the vid and the number of events before it), extended as commits arrive. At start the first call
 * reads the whole log once (the records, and the tree only for the commits that touched a database, table or
 * partition path); a read then starts from the nearest checkpoint. Recently rebuilt commits' events are cached.
 *
 * <p>Events older than the log keeps: the log keeps every record today (retention comes later). When records go,
 * the count of the events before the oldest one kept must be kept with them, or every later id would move;
 * {@link #firstEventId} is the one place that says which id comes first. A request from before it is answered from
 * it, as Hive's metastore answers a request for events its cleaner removed (its client then reports the gap).
 */
final class HmsEventLog {
    /** Commit records between two checkpoints of the index. */
    static final int STRIDE = 128;

    /** Commit records whose events are kept in memory, most recently used. */
    private static final int CACHED_RECORDS = 256;

    private final Supplier<CatalogService> service;
    private final HmsCommitEvents events;
    private final int stride;

    /** Checkpoints: {@code checkpointVids[i]}'s record has {@code checkpointEvents[i]} events before it. */
    private long[] checkpointVids = new long[64];

    private long[] checkpointEvents = new long[64];
    private int checkpoints;
    private long recordsIndexed;
    /** Every commit up to this vid is counted. */
    private long indexedVid;
    /** The events of the commits up to {@link #indexedVid}: the current event id. */
    private long indexedEvents;

    private final Map<Long, List<HmsCommitEvents.Event>> cache = new LinkedHashMap<>(CACHED_RECORDS, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, List<HmsCommitEvents.Event>> eldest) {
            return size() > CACHED_RECORDS;
        }
    };

    HmsEventLog(Supplier<CatalogService> service, HmsCommitEvents events) {
        this(service, events, STRIDE);
    }

    /** With checkpoints every {@code stride} records (tests use a short one to cross many). */
    HmsEventLog(Supplier<CatalogService> service, HmsCommitEvents events, int stride) {
        this.service = requireNonNull(service, "service is null");
        this.events = requireNonNull(events, "events is null");
        if (stride < 1) {
            throw new IllegalArgumentException("stride must be positive: " + stride);
        }
        this.stride = stride;
    }

    /** The id of the newest event: Hive's {@code get_current_notificationEventId} (0 when there is none). */
    long currentEventId() throws TException {
        synchronized (this) {
            catchUp();
            return indexedEvents;
        }
    }

    /**
     * The id of the oldest event the log can answer: 1 while the log keeps every record. The one place where events
     * older than the log keeps are decided.
     */
    long firstEventId() {
        return 1;
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
        walk(Math.max(lastEvent, firstEventId() - 1), Long.MAX_VALUE, event -> {
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
        walk(Math.max(after, firstEventId() - 1), upTo, event -> {
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

    /** Visits the events with ids in ({@code after}, {@code upTo}], oldest first, until the visitor stops. */
    private void walk(long after, long upTo, Visitor visitor) throws TException {
        long fromVid;
        long eventsBefore;
        long endVid;
        synchronized (this) {
            catchUp();
            if (after >= indexedEvents || upTo <= after) {
                return;
            }
            int checkpoint = lastCheckpointAtOrBefore(after);
            fromVid = checkpointVids[checkpoint];
            eventsBefore = checkpointEvents[checkpoint];
            endVid = indexedVid;
        }
        CatalogService catalog = service.get();
        long from = fromVid;
        while (from <= endVid) {
            CommitPage page =
                    catalog.listCommits(new CommitQuery(from, endVid, ObjectPath.ROOT, CommitQuery.MAX_LIMIT, false));
            for (CommitRecord record : page.records()) {
                List<HmsCommitEvents.Event> made = eventsOf(record);
                if (eventsBefore + made.size() > after) {
                    for (int i = 0; i < made.size(); i++) {
                        long id = eventsBefore + i + 1;
                        if (id > upTo) {
                            return;
                        }
                        if (id > after && !visitor.visit(notification(id, made.get(i)))) {
                            return;
                        }
                    }
                }
                eventsBefore += made.size();
            }
            if (page.nextVid().isEmpty()) {
                return;
            }
            from = page.nextVid().getAsLong();
        }
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

    /** Counts the events of the commits published since the last call. */
    private void catchUp() throws TException {
        CatalogService catalog = service.get();
        long newest = catalog.lastVid();
        long from = indexedVid + 1;
        while (from <= newest) {
            CommitPage page =
                    catalog.listCommits(new CommitQuery(from, newest, ObjectPath.ROOT, CommitQuery.MAX_LIMIT, false));
            for (CommitRecord record : page.records()) {
                if (recordsIndexed % stride == 0) {
                    addCheckpoint(record.vid(), indexedEvents);
                }
                recordsIndexed++;
                indexedEvents += eventsOf(record).size();
                indexedVid = record.vid();
            }
            if (page.nextVid().isEmpty()) {
                break;
            }
            from = page.nextVid().getAsLong();
        }
        // Vids without a record (a store older than the log) make no events.
        indexedVid = Math.max(indexedVid, newest);
        if (checkpoints == 0) {
            addCheckpoint(1, 0);
        }
    }

    private void addCheckpoint(long vid, long eventsBefore) {
        if (checkpoints == checkpointVids.length) {
            checkpointVids = Arrays.copyOf(checkpointVids, checkpoints * 2);
            checkpointEvents = Arrays.copyOf(checkpointEvents, checkpoints * 2);
        }
        checkpointVids[checkpoints] = vid;
        checkpointEvents[checkpoints] = eventsBefore;
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
