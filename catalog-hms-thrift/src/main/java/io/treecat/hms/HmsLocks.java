package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TException;

/**
 * Hive's lock table (the {@code lock}, {@code check_lock}, {@code heartbeat}, {@code unlock} and
 * {@code show_locks} calls), with the semantics {@code DbLockManager} clients rely on: a request is
 * all its components at once, it is granted ({@code ACQUIRED}) when no component conflicts with a
 * component of an earlier request (granted or still waiting, so a waiting writer is not starved by
 * later readers), otherwise it is {@code WAITING} until a later {@code check_lock} finds the way free.
 * A lock not heartbeated ({@code heartbeat}, {@code check_lock}) within the timeout is released, as a
 * crashed client's would be.
 *
 * <p>Which types conflict, when two components cover the same object (Hive 4's matrix): {@code
 * EXCLUSIVE} conflicts with everything; {@code EXCL_WRITE} with {@code EXCL_WRITE} and {@code
 * SHARED_WRITE}; {@code SHARED_WRITE} with neither {@code SHARED_WRITE} nor {@code SHARED_READ};
 * {@code SHARED_READ} with {@code EXCLUSIVE} only. Components cover objects hierarchically: a
 * database-level component covers every table of the database, a table-level one every partition of
 * the table. A database-level {@code SHARED_READ} is what Hive takes to keep a database from being
 * dropped while it is used, so it conflicts with database-level locks only, never with a lock on a
 * table inside.
 *
 * <p>The table lives in memory, not in the tree: locks are coordination between live clients, not
 * catalog state, and a lock that outlived a restart would only hold others back until it expired.
 * A restart releases every lock, as a crash of every client would. Lock ids are drawn from the start
 * time, so an id from before a restart is never reused after it: the old holder's next heartbeat
 * or check answers {@code NoSuchLockException}, and Iceberg's HiveCatalog then fails its commit
 * instead of committing under a lock it no longer holds. Hive transactions are not served, so any
 * non-zero {@code txnid} is a {@code NoSuchTxnException}.
 */
final class HmsLocks {
    private final Clock clock;
    private final Duration timeout;
    private final HmsNames names;
    /** In request order, which is also id order: the order conflicts are judged in. */
    private final Map<Long, Lock> locks = new LinkedHashMap<>();

    private long nextId;

    HmsLocks(Clock clock, Duration timeout, HmsNames names) {
        this.clock = requireNonNull(clock, "clock is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
        this.names = requireNonNull(names, "names is null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("Invalid lock timeout: " + timeout);
        }
        // Ids from before a restart stay unknown after it (unless a million locks were taken per millisecond).
        this.nextId = clock.millis() * 1_000_000L + 1;
    }

    /** One component of a request, names normalized; {@code table}/{@code partition} null above that level. */
    record Component(LockType type, String db, String table, String partition) {
        Component {
            requireNonNull(type, "type is null");
            requireNonNull(db, "db is null");
        }

        boolean databaseLevel() {
            return table == null;
        }

        /** Whether the two cover a common object: the same database, then table, then partition where both name one. */
        boolean overlaps(Component other) {
            return db.equals(other.db)
                    && (table == null || other.table == null || table.equals(other.table))
                    && (partition == null || other.partition == null || partition.equals(other.partition));
        }

        boolean conflicts(Component other) {
            if (!overlaps(other)) {
                return false;
            }
            // A database-level shared read only keeps the database itself from changing.
            if ((type == LockType.SHARED_READ && databaseLevel() && !other.databaseLevel())
                    || (other.type == LockType.SHARED_READ && other.databaseLevel() && !databaseLevel())) {
                return false;
            }
            return typesConflict(type, other.type);
        }
    }

    /** Hive 4's lock-type matrix; symmetric. */
    static boolean typesConflict(LockType a, LockType b) {
        if (a == LockType.EXCLUSIVE || b == LockType.EXCLUSIVE) {
            return true;
        }
        if (a == LockType.EXCL_WRITE) {
            return b == LockType.EXCL_WRITE || b == LockType.SHARED_WRITE;
        }
        if (b == LockType.EXCL_WRITE) {
            return a == LockType.SHARED_WRITE;
        }
        return false; // SHARED_READ and SHARED_WRITE among themselves
    }

    private static final class Lock {
        final long id;
        final List<Component> components;
        final String user;
        final String hostname;
        final String agentInfo;
        LockState state = LockState.WAITING;
        long lastHeartbeat;
        long acquiredAt;
        int heartbeatCount;
        long blockedBy;
        /** The component of {@link #blockedBy} this lock waits behind, from 1 (Hive's internal lock id). */
        long blockedByComponent;

        Lock(long id, List<Component> components, LockRequest request, long now) {
            this.id = id;
            this.components = List.copyOf(components);
            this.user = request.getUser();
            this.hostname = request.getHostname();
            this.agentInfo = request.getAgentInfo();
            this.lastHeartbeat = now;
        }
    }

    synchronized LockResponse lock(LockRequest request) throws TException {
        requireNonNull(request, "request is null");
        if (request.getTxnid() != 0) {
            throw noSuchTxn(request.getTxnid());
        }
        if (request.getComponent() == null || request.getComponent().isEmpty()) {
            throw new MetaException("A lock request needs at least one component");
        }
        List<Component> components = new ArrayList<>();
        for (LockComponent component : request.getComponent()) {
            components.add(component(component));
        }
        long now = clock.millis();
        expire(now);
        Lock lock = new Lock(nextId++, components, request, now);
        locks.put(lock.id, lock);
        grant(now);
        return response(lock);
    }

    private Component component(LockComponent component) throws TException {
        if (component.getType() == null || component.getLevel() == null) {
            throw new MetaException("A lock component needs a type and a level");
        }
        String db;
        try {
            db = names.database(component.getDbname());
        } catch (NoSuchObjectException e) {
            throw new MetaException(e.getMessage());
        }
        if (db == null || db.isEmpty()) {
            throw new MetaException("A lock component needs a database name");
        }
        String table = blankToNull(component.getTablename());
        String partition = blankToNull(component.getPartitionname());
        LockLevel level = component.getLevel();
        if (level == LockLevel.DB) {
            // Hive ignores names below the level asked for.
            return new Component(component.getType(), db, null, null);
        }
        if (table == null) {
            throw new MetaException("A " + level + "-level lock component needs a table name");
        }
        if (level == LockLevel.TABLE) {
            return new Component(component.getType(), db, HmsNames.normalize(table), null);
        }
        if (partition == null) {
            throw new MetaException("A PARTITION-level lock component needs a partition name");
        }
        return new Component(component.getType(), db, HmsNames.normalize(table), partition);
    }

    private static String blankToNull(String name) {
        return name == null || name.isEmpty() ? null : name;
    }

    synchronized LockResponse check(CheckLockRequest request) throws TException {
        if (request.getTxnid() != 0) {
            throw noSuchTxn(request.getTxnid());
        }
        long now = clock.millis();
        expire(now);
        Lock lock = require(request.getLockid());
        // Checking is a sign of life, as in Hive.
        lock.lastHeartbeat = now;
        grant(now);
        return response(lock);
    }

    synchronized void unlock(UnlockRequest request) throws TException {
        long now = clock.millis();
        expire(now);
        // Idempotent, as Hive's unlock: a lock that is unknown, released or expired is already free.
        if (locks.remove(request.getLockid()) != null) {
            grant(now);
        }
    }

    synchronized void heartbeat(HeartbeatRequest request) throws TException {
        if (request.getTxnid() != 0) {
            throw noSuchTxn(request.getTxnid());
        }
        long now = clock.millis();
        expire(now);
        if (request.getLockid() == 0) {
            return; // Hive: nothing to heartbeat
        }
        Lock lock = require(request.getLockid());
        lock.lastHeartbeat = now;
        lock.heartbeatCount++;
    }

    /** One element per component, in lock id order, filtered by database, table and partition as Hive does. */
    synchronized ShowLocksResponse show(ShowLocksRequest request) throws TException {
        long now = clock.millis();
        expire(now);
        grant(now);
        String db = null;
        if (request.isSetDbname() && !request.getDbname().isEmpty()) {
            try {
                db = names.database(request.getDbname());
            } catch (NoSuchObjectException e) {
                throw new MetaException(e.getMessage());
            }
        }
        String table = request.isSetTablename() && !request.getTablename().isEmpty()
                ? HmsNames.normalize(request.getTablename())
                : null;
        String partition = request.isSetPartname() && !request.getPartname().isEmpty() ? request.getPartname() : null;
        List<ShowLocksResponseElement> elements = new ArrayList<>();
        if (request.getTxnid() != 0) {
            return new ShowLocksResponse(elements); // no lock belongs to a transaction
        }
        for (Lock lock : locks.values()) {
            long internalId = 0;
            for (Component component : lock.components) {
                internalId++;
                if ((db != null && !db.equals(component.db()))
                        || (table != null && !table.equals(component.table()))
                        || (partition != null && !partition.equals(component.partition()))) {
                    continue;
                }
                ShowLocksResponseElement element = new ShowLocksResponseElement(
                        lock.id,
                        component.db(),
                        lock.state,
                        component.type(),
                        lock.lastHeartbeat,
                        lock.user,
                        lock.hostname);
                if (component.table() != null) {
                    element.setTablename(component.table());
                }
                if (component.partition() != null) {
                    element.setPartname(component.partition());
                }
                element.setTxnid(0);
                if (lock.state == LockState.ACQUIRED) {
                    element.setAcquiredat(lock.acquiredAt);
                }
                if (lock.heartbeatCount > 0) { // Hive leaves it unset until the first heartbeat
                    element.setHeartbeatCount(lock.heartbeatCount);
                }
                if (lock.agentInfo != null) {
                    element.setAgentInfo(lock.agentInfo);
                }
                if (lock.blockedBy != 0) {
                    element.setBlockedByExtId(lock.blockedBy);
                    element.setBlockedByIntId(lock.blockedByComponent);
                }
                element.setLockIdInternal(internalId);
                elements.add(element);
            }
        }
        return new ShowLocksResponse(elements);
    }

    /** How many locks are held or waited for (for tests and status). */
    synchronized int size() {
        expire(clock.millis());
        return locks.size();
    }

    private Lock require(long id) throws NoSuchLockException {
        Lock lock = locks.get(id);
        if (lock == null) {
            throw new NoSuchLockException("No such lock lockid:" + id + " (never taken, released, or expired after "
                    + timeout.toMillis() + " ms without a heartbeat)");
        }
        return lock;
    }

    private static NoSuchTxnException noSuchTxn(long txnid) {
        return new NoSuchTxnException(
                "No such transaction txnid:" + txnid + " (this metastore serves no Hive transactions)");
    }

    /** Releases every lock whose last sign of life is older than the timeout. */
    private void expire(long now) {
        long oldest = now - timeout.toMillis();
        boolean released = false;
        for (Iterator<Lock> it = locks.values().iterator(); it.hasNext(); ) {
            if (it.next().lastHeartbeat < oldest) {
                it.remove();
                released = true;
            }
        }
        if (released) {
            grant(now);
        }
    }

    /** Grants, in request order, each waiting lock that no earlier lock (granted or waiting) conflicts with. */
    private void grant(long now) {
        List<Lock> earlier = new ArrayList<>();
        for (Lock lock : locks.values()) {
            if (lock.state == LockState.WAITING) {
                long[] blocker = firstConflict(lock, earlier);
                if (blocker == null) {
                    lock.state = LockState.ACQUIRED;
                    lock.acquiredAt = now;
                    lock.blockedBy = 0;
                    lock.blockedByComponent = 0;
                } else {
                    lock.blockedBy = blocker[0];
                    lock.blockedByComponent = blocker[1];
                }
            }
            earlier.add(lock);
        }
    }

    /** The id of the first earlier lock {@code lock} conflicts with and its component's number (from 1), or null. */
    private static long[] firstConflict(Lock lock, List<Lock> earlier) {
        for (Lock other : earlier) {
            for (Component mine : lock.components) {
                for (int i = 0; i < other.components.size(); i++) {
                    if (mine.conflicts(other.components.get(i))) {
                        return new long[] {other.id, i + 1};
                    }
                }
            }
        }
        return null;
    }

    private static LockResponse response(Lock lock) {
        return new LockResponse(lock.id, lock.state);
    }
}
