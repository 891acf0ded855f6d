package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.service.CatalogService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.thrift.TException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the notification log's index durable as commits arrive, not when a client first asks: one thread, woken by
 * each published vid, counts the new commits' events and saves a checkpoint every {@link HmsEventLog#STRIDE} records
 * ({@link HmsEventLog#saveIfDue}). One writer thread per server, so its own saves never race; a save that races
 * another server's on the same tree conflicts and runs again (the one that lost finds the other's checkpoint).
 *
 * <p>A failed round (the store closing, a commit conflict left after the retries) is logged and tried again after
 * a pause: until a save succeeds the pin stays where it was, so retention waits rather than losing uncounted commits.
 * {@link #pause} stops the rounds (a test holds the index back with it); reads still count in memory.
 */
final class HmsEventIndexer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HmsEventIndexer.class);

    /** How long the thread sleeps without a publish: a safety net, a publish wakes it at once. */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(1);

    /** The pause after a failed round. */
    private static final Duration RETRY_WAIT = Duration.ofSeconds(5);

    private final HmsEventLog log;
    private final Supplier<CatalogService> service;
    private final Object signal = new Object();
    /** Held for a round, so {@link #pause} can wait for one in progress. */
    private final Object round = new Object();

    private boolean woken;
    private volatile boolean paused;
    private volatile boolean closing;
    private volatile long rounds;
    private Thread thread;
    private AutoCloseable listener;

    HmsEventIndexer(HmsEventLog log, Supplier<CatalogService> service) {
        this.log = requireNonNull(log, "log is null");
        this.service = requireNonNull(service, "service is null");
    }

    /** Opens the log (loading its checkpoints and taking its pin) and starts the thread. */
    synchronized void start() throws TException {
        if (thread != null) {
            throw new IllegalStateException("Already started");
        }
        log.open();
        listener = service.get().tree().publishListeners().add(vid -> wake());
        Thread indexing = new Thread(this::run, "treecat-hms-events");
        indexing.setDaemon(true);
        indexing.start();
        thread = indexing;
    }

    /**
     * Stops saving checkpoints until {@link #resume}: the pin stays at the newest saved one. Returns once a round in
     * progress has ended.
     */
    void pause() {
        paused = true;
        synchronized (round) {
            // Nothing: the round that held it has ended.
        }
    }

    void resume() {
        paused = false;
        wake();
    }

    /** Rounds completed, each having counted and saved what was due (tests wait on it). */
    long rounds() {
        return rounds;
    }

    private void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    private void run() {
        Duration wait = IDLE_WAIT;
        while (!closing && !Thread.currentThread().isInterrupted()) {
            if (!paused) {
                try {
                    boolean done;
                    synchronized (round) {
                        done = paused || log.saveIfDue(false);
                    }
                    rounds++;
                    wait = IDLE_WAIT;
                    if (!done) {
                        continue;
                    }
                } catch (TException | RuntimeException e) {
                    if (closing) {
                        return;
                    }
                    LOG.warn(
                            "Could not count or save the Hive notification log's index (tried again in {}): {}",
                            RETRY_WAIT,
                            e.toString());
                    wait = RETRY_WAIT;
                }
            }
            await(wait);
        }
    }

    private void await(Duration wait) {
        synchronized (signal) {
            long deadline = System.nanoTime() + wait.toNanos();
            while (!woken && !closing) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(signal, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            woken = false;
        }
    }

    /** Stops the thread, then closes the log (releasing its pin). */
    @Override
    public synchronized void close() {
        closing = true;
        wake();
        if (listener != null) {
            try {
                listener.close();
            } catch (Exception e) {
                LOG.warn("Could not remove the notification log's publish listener", e);
            }
            listener = null;
        }
        Thread running = thread;
        if (running != null) {
            try {
                running.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!paused) {
                // A clean stop saves every event counted, so nothing is lost if the store is collected before the
                // next start (docs/hms-thrift.md, "Event ids").
                try {
                    log.saveIfDue(true);
                } catch (TException | RuntimeException e) {
                    LOG.warn("Could not save the Hive notification log's index at stop: {}", e.toString());
                }
            }
        }
        log.close();
    }
}
