package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Privilege;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.hadoop.hive.metastore.api.CurrentNotificationEventId;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventRequest;
import org.apache.hadoop.hive.metastore.api.NotificationEventResponse;
import org.apache.hadoop.hive.metastore.api.NotificationEventsCountRequest;
import org.apache.hadoop.hive.metastore.api.NotificationEventsCountResponse;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hive's notification log ({@code get_current_notificationEventId}, {@code get_next_notification}, {@code
 * get_notification_events_count}) from the commit log ({@link HmsEventLog}): the log of the whole server, every
 * catalog's events in one sequence, as Hive's metastore keeps one. One instance serves every catalog's calls.
 *
 * <p>The requests are read as Hive's {@code ObjectStore} reads them: ids above {@code lastEvent} /
 * {@code fromEventId} (a negative one means from the first), the filters on catalog, database, table names and event
 * types, {@code maxEvents} at most {@value #MAX_EVENTS} (zero or negative: that many; Hive's cap is
 * {@code metastore.max.event.response}, a million, but each answer is built in memory here), {@code toEventId} and
 * {@code limit} when set. A missing request is the client's mistake, answered as Thrift answers a malformed call
 * ({@code TApplicationException(PROTOCOL_ERROR)} naming it): none of these calls declares an exception.
 */
final class HmsNotificationCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HmsNotificationCalls.class);
    /** The most events one {@code get_next_notification} answers. */
    static final int MAX_EVENTS = 1000;

    /**
     * An answer stops adding events once their messages reach this many characters (16 Mi): an event of a large
     * commit (an {@code ADD_PARTITION} of thousands of partitions) holds megabytes, and a thousand of them would be
     * built in memory at once. Fewer events than asked is an answer Hive's clients page on from.
     */
    static final long MAX_MESSAGE_CHARS = 16L << 20;

    /** {@code get_notification_events_count}'s database name for every database. */
    private static final String ALL_DATABASES = "*";

    /**
     * What reading the log takes: its events are every catalog's, and carry whole table and partition structs, so a
     * reader must be allowed to describe every table (docs/security.md, "Hive Metastore clients"). Admins hold it; a
     * cache or replication principal is granted it on {@code /}.
     */
    static final Privilege READ_LOG = Privilege.TABLE_READ_METADATA;

    private final HmsEventLog log;
    private final HmsNames names;
    private final HmsCalls calls;

    /**
     * @param calls the calls of Hive's default catalog (which TreeCat catalog {@code hive} is): its names, and who is
     *     calling
     */
    HmsNotificationCalls(HmsEventLog log, HmsCalls calls) {
        this.log = requireNonNull(log, "log is null");
        this.calls = requireNonNull(calls, "calls is null");
        this.names = calls.names();
    }

    /**
     * Refuses a caller who may not read the whole log. None of these calls declares an exception, so the refusal is
     * Thrift's own {@code TApplicationException}, which the client raises with this message (a MetaException would
     * reach it as "Internal error processing …").
     */
    private void checkMayRead() throws TApplicationException {
        if (!calls.holds(READ_LOG, ObjectPath.ROOT)) {
            LOG.info(
                    "Denied the notification log to {}: it lacks {} on /",
                    calls.principal().name(),
                    READ_LOG);
            throw new TApplicationException(
                    TApplicationException.UNKNOWN,
                    "Permission denied {privilege=" + READ_LOG + ", object=/}: the notification log holds every"
                            + " catalog's events");
        }
    }

    public CurrentNotificationEventId get_current_notificationEventId() throws TException {
        checkMayRead();
        return new CurrentNotificationEventId(log.currentEventId());
    }

    public NotificationEventResponse get_next_notification(NotificationEventRequest request) throws TException {
        checkMayRead();
        required(request, "get_next_notification", "NotificationEventRequest");
        int max =
                request.getMaxEvents() > 0 && request.getMaxEvents() < MAX_EVENTS ? request.getMaxEvents() : MAX_EVENTS;
        Predicate<NotificationEvent> filter = catalog(request.isSetCatName() ? request.getCatName() : null)
                .and(database(request.isSetDbName() ? request.getDbName() : null))
                .and(tables(request.isSetTableNames() ? request.getTableNames() : null));
        if (request.isSetEventTypeList()) {
            Set<String> types = new HashSet<>(request.getEventTypeList());
            filter = filter.and(event -> types.contains(event.getEventType()));
        }
        if (request.isSetEventTypeSkipList()) {
            Set<String> skipped = new HashSet<>(request.getEventTypeSkipList());
            filter = filter.and(event -> !skipped.contains(event.getEventType()));
        }
        NotificationEventResponse response = new NotificationEventResponse();
        response.setEvents(log.next(request.getLastEvent(), max, MAX_MESSAGE_CHARS, filter));
        return response;
    }

    public NotificationEventsCountResponse get_notification_events_count(NotificationEventsCountRequest request)
            throws TException {
        checkMayRead();
        required(request, "get_notification_events_count", "NotificationEventsCountRequest");
        if (request.getDbName() == null) {
            throw new TApplicationException(
                    TApplicationException.PROTOCOL_ERROR,
                    "get_notification_events_count: dbName is missing (a database name, or * for all)");
        }
        // Hive counts the events of the named catalog, its default one when none is named.
        Predicate<NotificationEvent> filter = catalog(
                        request.isSetCatName() ? request.getCatName() : HmsNames.HIVE_CATALOG)
                .and(database(request.getDbName().equals(ALL_DATABASES) ? null : request.getDbName()))
                .and(tables(request.isSetTableNames() ? request.getTableNames() : null));
        long upTo = request.isSetToEventId() ? request.getToEventId() : Long.MAX_VALUE;
        long limit = request.isSetLimit() && request.getLimit() >= 0 ? request.getLimit() : Long.MAX_VALUE;
        return new NotificationEventsCountResponse(log.count(request.getFromEventId(), upTo, limit, filter));
    }

    /** Events of the HMS catalog {@code name} (either of the default catalog's names means it); all when null. */
    private Predicate<NotificationEvent> catalog(String name) {
        if (name == null) {
            return event -> true;
        }
        String treecat = names.treecatCatalog(name);
        String hms = treecat == null ? HmsNames.normalize(name) : names.hmsName(treecat);
        return event -> hms.equals(event.getCatName());
    }

    private static Predicate<NotificationEvent> database(String name) {
        if (name == null) {
            return event -> true;
        }
        String db = HmsNames.normalize(name);
        return event -> db.equals(event.getDbName());
    }

    private static Predicate<NotificationEvent> tables(List<String> names) {
        if (names == null || names.isEmpty()) {
            return event -> true;
        }
        Set<String> tables = new HashSet<>();
        for (String name : names) {
            if (name != null) {
                tables.add(HmsNames.normalize(name));
            }
        }
        return event -> event.getTableName() != null && tables.contains(event.getTableName());
    }

    private static void required(Object request, String call, String type) throws TApplicationException {
        if (request == null) {
            throw new TApplicationException(
                    TApplicationException.PROTOCOL_ERROR, call + ": the request (" + type + ") is missing");
        }
    }
}
