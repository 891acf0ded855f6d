package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveLocks;
import io.treecat.lakehouse.model.HiveLockEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.TxnOpenException;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.thrift.TException;
import org.bson.BsonDocument;

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
 * <p>The table lives in the tree ({@link HiveLocks}, under the HMS catalog), as Hive keeps it in its database
 * ({@code HIVE_LOCKS}): a restart keeps every lock, its state and its last heartbeat, so a client that goes on
 * checking, heartbeating or unlocking its lock id after a restart finds it (or, once it went the timeout without a
 * sign of life, Hive's {@code NoSuchLockException}), and a lock a transaction holds still blocks a conflicting one.
 * Lock ids come from a counter in the tree that moves in the commit taking the lock, so an id is never handed out
 * twice, before or after a restart. Each call is one lake transaction that reads the table, decides as Hive does
 * (expiry, grants in id order) and stages what changed; the calls of one server also take this object's monitor,
 * so they do not fail each other's validation.
 *
 * <p>A lock taken in a Hive transaction (a request with a {@code txnid}) belongs to it: the transaction must be open
 * (checked in the same lake transaction that takes the lock, through {@link TransactionCheck}), its locks never
 * conflict with each other, they live as long as the transaction (its heartbeats keep them, not their own) and go
 * in the very commit that commits, aborts or expires it ({@link #release}); {@code unlock} refuses them, as Hive
 * does.
 */
final class HmsLocks {
    private final HmsCalls calls;
    private final Clock clock;
    private final Duration timeout;
    private final HmsNames names;

    /** Fails as Hive does unless Hive transaction {@code txnId} is open, read through {@code txn}. */
    @FunctionalInterface
    interface TransactionCheck {
        void requireOpen(LakeTransaction txn, long txnId) throws TException;
    }

    HmsLocks(HmsCalls calls, Clock clock, Duration timeout) {
        this.calls = requireNonNull(calls, "calls is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
        this.names = calls.names();
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("Invalid lock timeout: " + timeout);
        }
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

        HiveLockEntry.Component stored() {
            return new HiveLockEntry.Component(type.name(), db, table, partition);
        }

        static Component of(HiveLockEntry.Component stored) {
            return new Component(
                    LockType.valueOf(stored.type()), stored.database(), stored.table(), stored.partition());
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

    /** One lock as a call works on it: read from the tree, changed in place, written back if {@link #changed}. */
    private static final class Lock {
        final long id;
        /** The Hive transaction the lock belongs to; 0 for none. */
        final long txnId;

        final List<Component> components;
        final String user;
        final String hostname;
        final String agentInfo;
        LockState state;
        long lastHeartbeat;
        long acquiredAt;
        long heartbeatCount;
        long blockedBy;
        /** The component of {@link #blockedBy} this lock waits behind, from 1 (Hive's internal lock id). */
        long blockedByComponent;

        /** Fields of the stored lock no code here declares, written back as they were. */
        final BsonDocument others;

        boolean changed;

        Lock(long id, HiveLockEntry stored) {
            this.id = id;
            this.others = stored.others();
            this.txnId = stored.txnId();
            this.components = stored.components().stream().map(Component::of).toList();
            this.user = stored.user();
            this.hostname = stored.hostname();
            this.agentInfo = stored.agentInfo();
            this.state = LockState.valueOf(stored.state());
            this.lastHeartbeat = stored.lastHeartbeat();
            this.acquiredAt = stored.acquiredAt();
            this.heartbeatCount = stored.heartbeatCount();
            this.blockedBy = stored.blockedBy();
            this.blockedByComponent = stored.blockedByComponent();
        }

        boolean inTransaction() {
            return txnId != 0;
        }

        HiveLockEntry stored() {
            return new HiveLockEntry(
                    txnId,
                    components.stream().map(Component::stored).toList(),
                    user,
                    hostname,
                    agentInfo,
                    state.name(),
                    lastHeartbeat,
                    acquiredAt,
                    heartbeatCount,
                    blockedBy,
                    blockedByComponent,
                    others);
        }
    }

    /** The lock table as one lake transaction reads it; {@link #stage} writes back what the call changed. */
    private final class Table {
        final LakeTransaction txn;
        /** In id order, which is request order: the order conflicts are judged in. */
        final Map<Long, Lock> locks = new LinkedHashMap<>();

        Table(LakeTransaction txn) {
            this.txn = txn;
            for (HiveLocks.Lock stored : HiveLocks.all(txn, calls.catalog())) {
                locks.put(stored.id(), new Lock(stored.id(), stored.entry()));
            }
        }

        void release(long id) {
            if (locks.remove(id) != null) {
                HiveLocks.remove(txn, calls.catalog(), id);
            }
        }

        void stage() {
            for (Lock lock : locks.values()) {
                if (lock.changed) {
                    HiveLocks.update(txn, calls.catalog(), lock.id, lock.stored());
                }
            }
        }
    }

    private ObjectPath root() {
        return HiveLocks.root(calls.catalog());
    }

    /** Runs {@code work} on the lock table in one lake transaction, then stages what it changed. */
    private <T> T change(TableWork<T> work) throws TException {
        return calls.write(Action.MANAGE_TRANSACTIONS, root(), HmsTransactions.COUNTER_RETRIES, txn -> {
            Table table = new Table(txn);
            T result = work.run(table, clock.millis());
            table.stage();
            return result;
        });
    }

    @FunctionalInterface
    private interface TableWork<T> {
        T run(Table table, long now) throws TException;
    }

    /** Takes the locks a request asks for; one in a Hive transaction only while {@code transactions} says it is open. */
    synchronized LockResponse lock(LockRequest request, TransactionCheck transactions) throws TException {
        requireNonNull(request, "request is null");
        if (request.getComponent() == null || request.getComponent().isEmpty()) {
            throw new MetaException("A lock request needs at least one component");
        }
        List<Component> components = new ArrayList<>();
        for (LockComponent component : request.getComponent()) {
            components.add(component(component));
        }
        return change((table, now) -> {
            if (request.getTxnid() != 0) {
                // In the same lake transaction: a commit of the transaction meanwhile fails this one's validation.
                transactions.requireOpen(table.txn, request.getTxnid());
            }
            expire(table, now);
            HiveLockEntry entry = new HiveLockEntry(
                    request.getTxnid(),
                    components.stream().map(Component::stored).toList(),
                    request.getUser(),
                    request.getHostname(),
                    request.getAgentInfo(),
                    LockState.WAITING.name(),
                    now,
                    0,
                    0,
                    0,
                    0,
                    new BsonDocument());
            long id = HiveLocks.add(table.txn, calls.warehouse(), entry);
            Lock lock = new Lock(id, entry);
            table.locks.put(id, lock);
            // Staged as added; the grant's changes of its state follow as an update in the same commit.
            grant(table, now);
            return response(lock);
        });
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
        return change((table, now) -> {
            expire(table, now);
            Lock lock = require(table, request.getLockid());
            // Checking is a sign of life, as in Hive (of the transaction, for a transaction's lock: the caller's).
            lock.lastHeartbeat = now;
            lock.changed = true;
            grant(table, now);
            return response(lock);
        });
    }

    synchronized void unlock(UnlockRequest request) throws TException {
        change((table, now) -> {
            expire(table, now);
            Lock lock = table.locks.get(request.getLockid());
            if (lock != null && lock.inTransaction()) {
                Component first = lock.components.get(0);
                throw new TxnOpenException("Unlocking locks associated with transaction not permitted.  lockid:"
                        + lock.id + " intLockId:1 txnid:" + lock.txnId + " db:" + first.db() + " table:"
                        + first.table() + " partition:" + first.partition() + " state:" + lock.state + " type:"
                        + first.type());
            }
            // Idempotent, as Hive's unlock: a lock that is unknown, released or expired is already free.
            if (lock != null) {
                table.release(lock.id);
                grant(table, now);
            }
            return null;
        });
    }

    /** The Hive transaction lock {@code lockId} belongs to: 0 for none (or no such lock). */
    synchronized long transactionOf(long lockId) throws TException {
        return calls.read(
                Action.LIST_TRANSACTIONS,
                root(),
                txn -> HiveLocks.all(txn, calls.catalog()).stream()
                        .filter(lock -> lock.id() == lockId)
                        .mapToLong(lock -> lock.entry().txnId())
                        .findFirst()
                        .orElse(0));
    }

    /** Whether some lock belongs to a Hive transaction (whose expiry the transactions then check). */
    synchronized boolean holdsTransactionLocks() throws TException {
        return calls.read(
                Action.LIST_TRANSACTIONS,
                root(),
                txn -> HiveLocks.all(txn, calls.catalog()).stream()
                        .anyMatch(lock -> lock.entry().txnId() != 0));
    }

    /**
     * Stages, in {@code txn} (the one committing, aborting or expiring Hive transaction {@code txnId}), the release
     * of every lock of the transaction, so the locks go in the same commit as the transaction's end. Grants to the
     * locks they held back happen at their next {@code check_lock}, as in Hive.
     */
    void release(LakeTransaction txn, long txnId) {
        for (HiveLocks.Lock lock : HiveLocks.ofTransaction(txn, calls.catalog(), txnId)) {
            HiveLocks.remove(txn, calls.catalog(), lock.id());
        }
    }

    /** Releases every lock of Hive transaction {@code txnId} in a commit of its own (tests). */
    synchronized void releaseTransaction(long txnId) throws TException {
        calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            release(txn, txnId);
            return null;
        });
    }

    /** Heartbeats lock {@code lockId} (0: none, as in Hive); a transaction's lock lives by its transaction's. */
    synchronized void heartbeat(long lockId) throws TException {
        if (lockId == 0) {
            return; // Hive: nothing to heartbeat
        }
        change((table, now) -> {
            expire(table, now);
            Lock lock = require(table, lockId);
            if (!lock.inTransaction()) {
                lock.lastHeartbeat = now;
                lock.heartbeatCount++;
                lock.changed = true;
            }
            return null;
        });
    }

    /** One element per component, in lock id order, filtered by database, table and partition as Hive does. */
    synchronized ShowLocksResponse show(ShowLocksRequest request) throws TException {
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
        String dbFilter = db;
        List<Lock> shown = change((locks, now) -> {
            expire(locks, now);
            grant(locks, now);
            return List.copyOf(locks.locks.values());
        });
        List<ShowLocksResponseElement> elements = new ArrayList<>();
        for (Lock lock : shown) {
            if (request.getTxnid() != 0 && request.getTxnid() != lock.txnId) {
                continue;
            }
            long internalId = 0;
            for (Component component : lock.components) {
                internalId++;
                if ((dbFilter != null && !dbFilter.equals(component.db()))
                        || (table != null && !table.equals(component.table()))
                        || (partition != null && !partition.equals(component.partition()))) {
                    continue;
                }
                elements.add(element(lock, component, internalId));
            }
        }
        return new ShowLocksResponse(elements);
    }

    private static ShowLocksResponseElement element(Lock lock, Component component, long internalId) {
        ShowLocksResponseElement element = new ShowLocksResponseElement(
                lock.id,
                component.db(),
                lock.state,
                component.type(),
                // Hive keeps a transaction's heartbeat on the transaction, and shows its locks' as 0.
                lock.inTransaction() ? 0 : lock.lastHeartbeat,
                lock.user,
                lock.hostname);
        if (component.table() != null) {
            element.setTablename(component.table());
        }
        if (component.partition() != null) {
            element.setPartname(component.partition());
        }
        element.setTxnid(lock.txnId);
        if (lock.state == LockState.ACQUIRED) {
            element.setAcquiredat(lock.acquiredAt);
        }
        if (lock.heartbeatCount > 0) { // Hive leaves it unset until the first heartbeat
            element.setHeartbeatCount((int) Math.min(Integer.MAX_VALUE, lock.heartbeatCount));
        }
        if (lock.agentInfo != null) {
            element.setAgentInfo(lock.agentInfo);
        }
        if (lock.blockedBy != 0) {
            element.setBlockedByExtId(lock.blockedBy);
            element.setBlockedByIntId(lock.blockedByComponent);
        }
        element.setLockIdInternal(internalId);
        return element;
    }

    /** How many locks are held or waited for (for tests and status); expired ones are not counted. */
    synchronized int size() throws TException {
        long oldest = clock.millis() - timeout.toMillis();
        return calls.read(Action.LIST_TRANSACTIONS, root(), txn -> (int) HiveLocks.all(txn, calls.catalog()).stream()
                .filter(lock -> lock.entry().txnId() != 0 || lock.entry().lastHeartbeat() >= oldest)
                .count());
    }

    private NoSuchLockException noSuchLock(long id) {
        return new NoSuchLockException("No such lock lockid:" + id + " (never taken, released, or expired after "
                + timeout.toMillis() + " ms without a heartbeat)");
    }

    private Lock require(Table table, long id) throws NoSuchLockException {
        Lock lock = table.locks.get(id);
        if (lock == null) {
            throw noSuchLock(id);
        }
        return lock;
    }

    /**
     * Releases every lock whose last sign of life is older than the timeout, as Hive's {@code performTimeOuts}
     * does: measured on the clock now, so a lock whose client went silent across a restart expires too.
     */
    private void expire(Table table, long now) {
        long oldest = now - timeout.toMillis();
        List<Long> expired = new ArrayList<>();
        for (Lock lock : table.locks.values()) {
            if (!lock.inTransaction() && lock.lastHeartbeat < oldest) {
                expired.add(lock.id);
            }
        }
        expired.forEach(table::release);
        if (!expired.isEmpty()) {
            grant(table, now);
        }
    }

    /** Grants, in request order, each waiting lock that no earlier lock (granted or waiting) conflicts with. */
    private static void grant(Table table, long now) {
        List<Lock> earlier = new ArrayList<>();
        for (Lock lock : table.locks.values()) {
            if (lock.state == LockState.WAITING) {
                long[] blocker = firstConflict(lock, earlier);
                if (blocker == null) {
                    lock.state = LockState.ACQUIRED;
                    lock.acquiredAt = now;
                    lock.blockedBy = 0;
                    lock.blockedByComponent = 0;
                    lock.changed = true;
                } else if (lock.blockedBy != blocker[0] || lock.blockedByComponent != blocker[1]) {
                    lock.blockedBy = blocker[0];
                    lock.blockedByComponent = blocker[1];
                    lock.changed = true;
                }
            }
            earlier.add(lock);
        }
    }

    /** The id of the first earlier lock {@code lock} conflicts with and its component's number (from 1), or null. */
    private static long[] firstConflict(Lock lock, List<Lock> earlier) {
        for (Lock other : earlier) {
            if (lock.inTransaction() && lock.txnId == other.txnId) {
                continue; // Hive: the locks of one transaction never conflict with each other
            }
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
