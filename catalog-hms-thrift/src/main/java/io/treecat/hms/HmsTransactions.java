package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveTransactions;
import io.treecat.lakehouse.model.HiveTransactionEntry;
import io.treecat.lakehouse.model.HiveTransactionEntry.State;
import io.treecat.lakehouse.model.HiveTransactionsEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsInfoResponse;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.HeartbeatTxnRangeResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchTxnException;
import org.apache.hadoop.hive.metastore.api.TxnAbortedException;
import org.apache.hadoop.hive.metastore.api.TxnInfo;
import org.apache.hadoop.hive.metastore.api.TxnState;
import org.apache.hadoop.hive.metastore.api.TxnType;
import org.apache.thrift.TException;

/**
 * Hive's transactions, with the semantics of Hive 4's {@code TxnHandler}, on the lake's {@link HiveTransactions}
 * records: ids from a counter in the tree, state open → committed or open → aborted, a heartbeat timeout after which
 * an open transaction is aborted (as Hive's housekeeping does), and the locks a transaction took released with it.
 *
 * <p>Every call is one lake transaction: the ids and states it decides on are read through it, so two clients
 * opening, committing or heartbeating the same transaction at once serialize (the loser runs again). Expiry is
 * checked lazily, at most once a second, at the start of the transaction calls and of the lock calls of a server
 * that holds transaction locks: the expired transactions are aborted in one commit of their own.
 */
final class HmsTransactions {
    /** Hive's {@code metastore.txn.max.open.batch}: more asked for in one call are not opened. */
    static final int MAX_OPEN_BATCH = 1000;
    /** Hive's {@code metastore.max.open.txns}: no new transaction while this many are open. */
    static final int MAX_OPEN = 100_000;
    /** The widest {@code heartbeat_txn_range} served (Hive's allocates a list of the whole range). */
    static final int MAX_HEARTBEAT_RANGE = 100_000;

    /**
     * Drawing ids moves one counter, which every client opening a transaction (or allocating a table's write ids)
     * reads: under contention most attempts lose the race, so they retry more than the runner's default five times.
     */
    static final RetryPolicy COUNTER_RETRIES = new RetryPolicy(50, Duration.ofMillis(1), Duration.ofMillis(50));

    private static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);

    private final HmsCalls calls;
    private final HmsLocks locks;
    private final Clock clock;
    private final Duration timeout;
    private final AtomicLong lastSweep = new AtomicLong(Long.MIN_VALUE);

    HmsTransactions(HmsCalls calls, HmsLocks locks, Clock clock, Duration timeout) {
        this.calls = requireNonNull(calls, "calls is null");
        this.locks = requireNonNull(locks, "locks is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
    }

    /** The TreeCat catalog the transactions live in: the HMS catalog's (Hive's transactions are the metastore's). */
    String catalog() {
        return calls.catalog();
    }

    private ObjectPath root() {
        return HiveTransactions.root(calls.catalog());
    }

    // ---- the states Hive reports

    static String txnId(long id) {
        return "txnid:" + id;
    }

    static NoSuchTxnException noSuch(long id) {
        return new NoSuchTxnException("No such transaction " + txnId(id));
    }

    static NoSuchTxnException alreadyCommitted(long id) {
        return new NoSuchTxnException("Transaction " + txnId(id) + " is already committed.");
    }

    static TxnAbortedException alreadyAborted(long id) {
        return new TxnAbortedException("Transaction " + txnId(id) + " already aborted");
    }

    /** Transaction {@code id}, which must be open (Hive's messages otherwise). */
    private HiveTransactionEntry requireOpen(LakeTransaction txn, long id) throws TException {
        Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, calls.catalog(), id);
        if (found.isEmpty()) {
            throw noSuch(id);
        }
        return switch (found.get().state()) {
            case OPEN -> found.get();
            case ABORTED -> throw alreadyAborted(id);
            case COMMITTED -> throw alreadyCommitted(id);
        };
    }

    /** Fails as Hive does unless transaction {@code id} is open. */
    void checkOpen(long id) throws TException {
        expire();
        calls.read(Action.LIST_TRANSACTIONS, root(), txn -> requireOpen(txn, id));
    }

    /** For the lock table: fails as Hive does unless transaction {@code id} is open, read through {@code txn}. */
    void checkOpen(LakeTransaction txn, long id) throws TException {
        requireOpen(txn, id);
    }

    // ---- open, commit, abort

    List<Long> open(int count, TxnType type, String user, String hostname) throws TException {
        if (count <= 0) {
            throw new MetaException("Invalid input for number of txns: " + count);
        }
        int opened = Math.min(count, MAX_OPEN_BATCH);
        expire();
        long now = clock.millis();
        HiveTransactionEntry entry =
                HiveTransactionEntry.open((type == null ? TxnType.DEFAULT : type).name(), user, hostname, now);
        // Counted apart from the opening commit, as Hive counts (its count is refreshed in the background): read in
        // the opening transaction, every commit or heartbeat of any transaction would make it conflict.
        long open = calls.read(
                Action.LIST_TRANSACTIONS,
                root(),
                txn -> HiveTransactions.openOrAborted(txn, calls.catalog()).stream()
                        .filter(found -> found.entry().isOpen())
                        .count());
        if (open + opened > MAX_OPEN) {
            throw new MetaException("Maximum allowed number of open transactions (" + MAX_OPEN
                    + ") has been reached. Current number of open transactions: " + open);
        }
        return calls.write(
                Action.MANAGE_TRANSACTIONS,
                root(),
                COUNTER_RETRIES,
                txn -> HiveTransactions.open(txn, calls.warehouse(), opened, entry));
    }

    /** Commits {@code id}; committing a committed transaction again succeeds, as in Hive (a retried commit). */
    void commit(long id) throws TException {
        expire();
        calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, calls.catalog(), id);
            if (found.isEmpty()) {
                throw noSuch(id);
            }
            switch (found.get().state()) {
                case OPEN -> {
                    HiveTransactions.commit(txn, calls.catalog(), id, found.get());
                    locks.release(txn, id);
                }
                case ABORTED -> throw alreadyAborted(id);
                case COMMITTED -> {
                    // Hive: "Nth commitTxn", idempotent.
                }
            }
            return null;
        });
    }

    /** Aborts {@code id}; aborting an aborted transaction again succeeds, as in Hive. */
    void abort(long id) throws TException {
        expire();
        calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, calls.catalog(), id);
            if (found.isEmpty()) {
                throw noSuch(id);
            }
            switch (found.get().state()) {
                case OPEN -> {
                    HiveTransactions.update(
                            txn, calls.catalog(), id, found.get().withState(State.ABORTED));
                    locks.release(txn, id);
                }
                case ABORTED -> {
                    // Hive: already aborted, nothing to do.
                }
                case COMMITTED -> throw alreadyCommitted(id);
            }
            return null;
        });
    }

    /** Aborts those of {@code ids} that are open; the others are left as they are, as Hive's abort_txns does. */
    void abortAll(Collection<Long> ids) throws TException {
        expire();
        abortOpen(new TreeSet<>(ids));
    }

    private Set<Long> abortOpen(Set<Long> ids) throws TException {
        return calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            Set<Long> aborted = new TreeSet<>();
            for (long id : ids) {
                Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, calls.catalog(), id);
                if (found.isPresent() && found.get().isOpen()) {
                    HiveTransactions.update(
                            txn, calls.catalog(), id, found.get().withState(State.ABORTED));
                    locks.release(txn, id);
                    aborted.add(id);
                }
            }
            return aborted;
        });
    }

    // ---- heartbeats and expiry

    void heartbeat(long id) throws TException {
        expire();
        long now = clock.millis();
        calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            HiveTransactionEntry open = requireOpen(txn, id);
            HiveTransactions.update(txn, calls.catalog(), id, open.withHeartbeat(now));
            return null;
        });
    }

    /** Heartbeats the open transactions of {@code [min, max]}; reports the aborted ones and those not open. */
    HeartbeatTxnRangeResponse heartbeatRange(long min, long max) throws TException {
        if (max < min) {
            throw new MetaException("Invalid transaction range: min " + min + " > max " + max);
        }
        if (max - min >= MAX_HEARTBEAT_RANGE) {
            throw new MetaException("Transaction range " + min + ".." + max + " is wider than " + MAX_HEARTBEAT_RANGE);
        }
        expire();
        long now = clock.millis();
        return calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            Set<Long> aborted = new HashSet<>();
            Set<Long> noSuch = new HashSet<>();
            for (long id = min; id <= max; id++) {
                Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, calls.catalog(), id);
                if (found.isEmpty() || found.get().state() == State.COMMITTED) {
                    noSuch.add(id);
                } else if (found.get().state() == State.ABORTED) {
                    aborted.add(id);
                } else {
                    HiveTransactions.update(
                            txn, calls.catalog(), id, found.get().withHeartbeat(now));
                }
            }
            return new HeartbeatTxnRangeResponse(aborted, noSuch);
        });
    }

    /**
     * Aborts every open transaction not heartbeated within the timeout (and releases its locks), as Hive's
     * housekeeping does; runs at most once per {@link #SWEEP_INTERVAL} of the clock.
     */
    void expire() throws TException {
        long now = clock.millis();
        long last = lastSweep.get();
        if (last != Long.MIN_VALUE && now - last < SWEEP_INTERVAL.toMillis()) {
            return;
        }
        if (!lastSweep.compareAndSet(last, now)) {
            return;
        }
        long oldest = now - timeout.toMillis();
        List<Long> expired = calls.read(Action.LIST_TRANSACTIONS, root(), txn -> expired(txn, oldest));
        if (expired.isEmpty()) {
            return;
        }
        calls.write(Action.MANAGE_TRANSACTIONS, root(), txn -> {
            Set<Long> ids = new TreeSet<>();
            for (long id : expired) {
                Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, calls.catalog(), id);
                // Read again in this transaction: a heartbeat since the sweep's read keeps it open.
                if (found.isPresent() && found.get().isOpen() && found.get().lastHeartbeat() < oldest) {
                    HiveTransactions.update(
                            txn, calls.catalog(), id, found.get().withState(State.ABORTED));
                    locks.release(txn, id);
                    ids.add(id);
                }
            }
            return ids;
        });
    }

    private List<Long> expired(LakeTransaction txn, long oldest) {
        List<Long> expired = new ArrayList<>();
        for (HiveTransactions.Transaction found : HiveTransactions.openOrAborted(txn, calls.catalog())) {
            if (found.entry().isOpen() && found.entry().lastHeartbeat() < oldest) {
                expired.add(found.id());
            }
        }
        return expired;
    }

    // ---- listing

    /** Hive's {@code get_open_txns}: the open and aborted transactions but those of the excluded types. */
    GetOpenTxnsResponse openTransactions(Collection<TxnType> excluded) throws TException {
        expire();
        return calls.read(Action.LIST_TRANSACTIONS, root(), txn -> openTransactions(txn, excluded));
    }

    GetOpenTxnsResponse openTransactions(LakeTransaction txn, Collection<TxnType> excluded) {
        Set<String> skipped = new HashSet<>();
        excluded.forEach(type -> skipped.add(type.name()));
        List<Long> ids = new ArrayList<>();
        BitSet aborted = new BitSet();
        long minOpen = Long.MAX_VALUE;
        for (HiveTransactions.Transaction found : HiveTransactions.openOrAborted(txn, calls.catalog())) {
            if (found.entry().isOpen()) {
                minOpen = Math.min(minOpen, found.id());
            }
            if (skipped.contains(found.entry().txnType())) {
                continue;
            }
            ids.add(found.id());
            if (found.entry().state() == State.ABORTED) {
                aborted.set(ids.size() - 1);
            }
        }
        GetOpenTxnsResponse response =
                new GetOpenTxnsResponse(highWaterMark(txn), ids, ByteBuffer.wrap(aborted.toByteArray()));
        if (minOpen < Long.MAX_VALUE) {
            response.setMin_open_txn(minOpen);
        }
        return response;
    }

    /** The highest transaction id handed out; 0 before the first. */
    long highWaterMark(LakeTransaction txn) {
        return HiveTransactions.counters(txn, calls.catalog())
                        .map(HiveTransactionsEntry::nextTxnId)
                        .orElse(1L)
                - 1;
    }

    /** Hive's {@code get_open_txns_info}: every open and aborted transaction with its user, host and times. */
    GetOpenTxnsInfoResponse openTransactionsInfo() throws TException {
        expire();
        return calls.read(Action.LIST_TRANSACTIONS, root(), txn -> {
            List<TxnInfo> infos = new ArrayList<>();
            for (HiveTransactions.Transaction found : HiveTransactions.openOrAborted(txn, calls.catalog())) {
                HiveTransactionEntry entry = found.entry();
                TxnInfo info = new TxnInfo(
                        found.id(),
                        entry.isOpen() ? TxnState.OPEN : TxnState.ABORTED,
                        entry.user() == null ? "" : entry.user(),
                        entry.hostname() == null ? "" : entry.hostname());
                info.setStartedTime(entry.started());
                info.setLastHeartbeatTime(entry.lastHeartbeat());
                infos.add(info);
            }
            return new GetOpenTxnsInfoResponse(highWaterMark(txn), infos);
        });
    }
}
