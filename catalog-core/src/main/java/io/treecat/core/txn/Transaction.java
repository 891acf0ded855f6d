package io.treecat.core.txn;

import io.treecat.core.version.ReadPins;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A transaction session: its read vid and, for read-write transactions, the scan set its queries
 * recorded. Handed out by {@link TransactionManager#begin}; every later call names it by {@link
 * #id()}.
 */
public final class Transaction {
    private final TransactionId id;
    private final TransactionMode mode;
    private final long readVid;
    /** Start order, for wait-die: a smaller number is an older transaction. */
    private final long startSequence;

    private final List<ScanEntry> scanSet = new ArrayList<>();
    private volatile Instant lastActivity;
    /**
     * OPEN, then COMMITTING or ENDED, each change one compare-and-set: the idle sweeper and a commit
     * that starts at the same moment cannot both win, so a transaction is never expired mid-commit
     * (its read vid would stop holding the validation log's watermark while it is validated).
     */
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);

    private enum State {
        OPEN,
        COMMITTING,
        ENDED
    }
    /** Keeps the collector from passing the read vid while the session is open. */
    private final ReadPins.Pin pin;

    Transaction(
            TransactionId id, TransactionMode mode, long readVid, long startSequence, Instant now, ReadPins.Pin pin) {
        this.id = id;
        this.mode = mode;
        this.readVid = readVid;
        this.startSequence = startSequence;
        this.lastActivity = now;
        this.pin = pin;
    }

    /** Lets the collector pass the read vid; the session has ended. */
    void unpin() {
        pin.close();
    }

    public TransactionId id() {
        return id;
    }

    public TransactionMode mode() {
        return mode;
    }

    /** Every query of the transaction reads at this vid (with MGL, read-write queries read the newest). */
    public long readVid() {
        return readVid;
    }

    long startSequence() {
        return startSequence;
    }

    Instant lastActivity() {
        return lastActivity;
    }

    void touch(Instant now) {
        lastActivity = now;
    }

    /** Starts the commit; false if the transaction already ended (expired, aborted or committed). */
    boolean startCommit() {
        return state.compareAndSet(State.OPEN, State.COMMITTING);
    }

    /** Ends the transaction unless a commit has started; false if it has, or it already ended. */
    boolean endIfNotCommitting() {
        return state.compareAndSet(State.OPEN, State.ENDED);
    }

    void markEnded() {
        state.set(State.ENDED);
    }

    boolean isCommitting() {
        return state.get() == State.COMMITTING;
    }

    synchronized void recordScan(ScanEntry entry) {
        scanSet.add(entry);
    }

    /** A copy of the scan set so far. */
    public synchronized List<ScanEntry> scanSet() {
        return List.copyOf(scanSet);
    }

    @Override
    public String toString() {
        return "Transaction{" + id + ", " + mode + ", readVid=" + readVid + "}";
    }
}
