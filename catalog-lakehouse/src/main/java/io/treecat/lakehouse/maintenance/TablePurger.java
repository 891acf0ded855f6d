package io.treecat.lakehouse.maintenance;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.NamedSnapshot;
import io.treecat.lakehouse.Lakehouse;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.catalog.Catalogs;
import io.treecat.lakehouse.catalog.TablePurges;
import io.treecat.lakehouse.catalog.TablePurges.Purge;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PurgeEntry;
import io.treecat.lakehouse.model.TableEntry;
import io.treecat.lakehouse.storage.Locations;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files of dropped tables, in the background, after their drop committed: it works through the purge
 * queues ({@link TablePurges}) on one thread, woken by each drop with purge and every {@code interval} for retries.
 *
 * <p>A purge deletes only inside the table's location ({@link TableFiles}), and waits while another table entry
 * still uses the table's files: an Iceberg table anywhere in the tree (any catalog, a clone's copy too) with the same
 * table uuid or whose metadata file is one of this table's (a table registered from its metadata); a Hive table whose
 * location contains or lies inside the location (Hive reads whatever is in its directory); or a named snapshot that
 * still holds such a table at the dropped path. A new table made at the same location after the drop (same name,
 * same default location) has its own uuid and files, and does not hold the purge back. A purge held back is deferred,
 * not dropped: it is tried again later and runs once the claim is gone. A failed attempt (the store unreachable, say) is
 * tried again after a backoff that doubles from {@code interval} up to {@code maxBackoff}, for as long as it takes;
 * its error is kept on the queued purge. Progress shows in {@link #stats()}.
 *
 * <p>Engines can write data files elsewhere and point to them (Spark's {@code snapshot} procedure does); those are
 * outside the location, so never deleted. A table that shares files inside this location with its own metadata
 * elsewhere is not seen: finding it would mean reading every other table's manifests.
 */
public final class TablePurger implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TablePurger.class);
    /** Files deleted in one request of a store that deletes in bulk (S3's DeleteObjects takes 1,000). */
    static final int DELETE_BATCH = 1000;
    /** The longest error text kept on a queued purge. */
    private static final int MAX_ERROR_LENGTH = 1000;

    private final Lakehouse lake;
    private final Clock clock;
    private final Duration interval;
    private final Duration maxBackoff;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean passQueued = new AtomicBoolean();
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong deferred = new AtomicLong();
    private final AtomicLong failedAttempts = new AtomicLong();
    private final AtomicLong filesDeleted = new AtomicLong();
    private volatile boolean started;

    /** What the purger did since start, and what waits. */
    private final BooleanSupplier active;

    public record Stats(long queued, long completed, long deferred, long failedAttempts, long filesDeleted) {}

    public TablePurger(Lakehouse lake, Clock clock, Duration interval, Duration maxBackoff) {
        this(lake, clock, interval, maxBackoff, () -> true);
    }

    /**
     * @param active whether this server runs the passes now: in a replicated group only the leader does
     *     (the others' passes would forward every claim to it and race it for the same files)
     */
    public TablePurger(Lakehouse lake, Clock clock, Duration interval, Duration maxBackoff, BooleanSupplier active) {
        this.active = requireNonNull(active, "active is null");
        this.lake = requireNonNull(lake, "lake is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.interval = requireNonNull(interval, "interval is null");
        this.maxBackoff = requireNonNull(maxBackoff, "maxBackoff is null");
        if (interval.isNegative() || interval.isZero() || maxBackoff.compareTo(interval) < 0) {
            throw new IllegalArgumentException(
                    "interval must be positive and maxBackoff at least interval: " + interval + ", " + maxBackoff);
        }
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread worker = new Thread(runnable, "treecat-purge");
            worker.setDaemon(true);
            return worker;
        });
    }

    /** Starts the passes: one now (what a restart finds queued), then one every {@code interval}. */
    public void start() {
        started = true;
        thread.scheduleWithFixedDelay(this::pass, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks for a pass soon (a drop with purge committed); passes asked for while one waits are one. */
    public void wake() {
        if (started && passQueued.compareAndSet(false, true)) {
            try {
                thread.execute(this::pass);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                passQueued.set(false);
            }
        }
    }

    public Stats stats() {
        return new Stats(queued.get(), completed.get(), deferred.get(), failedAttempts.get(), filesDeleted.get());
    }

    /** One pass over every catalog's queue: each purge that is due is attempted once. */
    void pass() {
        passQueued.set(false);
        if (!active.getAsBoolean()) {
            return;
        }
        try {
            List<Purge> purges = lake.runner()
                    .read(Access.of(Principal.SYSTEM, Action.PURGE_TABLES, ObjectPath.ROOT), txn -> {
                        List<Purge> all = new ArrayList<>();
                        for (String catalog : Catalogs.list(txn).keySet()) {
                            all.addAll(TablePurges.queued(txn, catalog));
                        }
                        return all;
                    });
            queued.set(purges.size());
            long now = clock.millis();
            List<Claim> claims = null;
            for (Purge purge : purges) {
                if (purge.entry().nextAttempt() > now) {
                    continue;
                }
                if (claims == null) {
                    claims = claims(); // once per pass, and only when some purge is due
                }
                attempt(purge, claims);
            }
        } catch (RuntimeException | Error e) {
            // The next pass tries again; the thread must survive.
            LOG.warn("A purge pass failed; the next pass tries again", e);
        }
    }

    /** What a table entry could share with a dropped table: its location, metadata file and Iceberg uuid. */
    private record Claim(ObjectPath path, TableEntry table) {}

    private void attempt(Purge purge, List<Claim> claims) {
        PurgeEntry entry = purge.entry();
        try {
            FileIO io = lake.warehouses().forCatalog(purge.catalog()).io();
            long deleted = 0;
            Optional<TableMetadata> metadata = readMetadata(io, entry);
            if (metadata.isPresent()) {
                Optional<String> holder = holder(entry, metadata.get(), claims);
                if (holder.isPresent()) {
                    deferred.incrementAndGet();
                    record(
                            purge,
                            entry.failed("deferred: " + holder.get(), clock.millis() + backoff(entry.attempts())));
                    return;
                }
                Deleter deleter = new Deleter(io);
                TableFiles.forEachInside(io, metadata.get(), entry.location(), deleter);
                deleter.flush();
                deleted = deleter.deleted;
            }
            filesDeleted.addAndGet(deleted);
            write(purge.catalog(), txn -> {
                TablePurges.finish(txn, purge);
                return null;
            });
            completed.incrementAndGet();
            queued.decrementAndGet();
            LOG.info("Purged {} of catalog {}: {} files deleted", entry.table(), purge.catalog(), deleted);
        } catch (RuntimeException e) {
            failedAttempts.incrementAndGet();
            String error = describe(e);
            LOG.warn(
                    "Purging {} of catalog {} failed (attempt {}); it is tried again later: {}",
                    entry.table(),
                    purge.catalog(),
                    entry.attempts() + 1,
                    error);
            record(purge, entry.failed(error, clock.millis() + backoff(entry.attempts())));
        }
    }

    private void record(Purge purge, PurgeEntry updated) {
        try {
            write(purge.catalog(), txn -> {
                TablePurges.update(txn, purge, updated);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not record the state of the purge of {}",
                    purge.entry().table(),
                    e);
        }
    }

    private <T> T write(String catalog, io.treecat.lakehouse.txn.Work<T, RuntimeException> work) {
        return lake.runner()
                .write(
                        Access.of(Principal.SYSTEM, Action.PURGE_TABLES, TablePurges.queue(catalog)),
                        RetryPolicy.DEFAULT,
                        work);
    }

    /** The wait before the attempt after {@code failures} failures: {@code interval} doubled per failure, capped. */
    long backoff(int failures) {
        long millis = interval.toMillis();
        for (int i = 0; i < failures && millis < maxBackoff.toMillis(); i++) {
            millis *= 2;
        }
        return Math.min(millis, maxBackoff.toMillis());
    }

    /** The dropped table's last metadata; empty once it is gone (deleted last by an earlier attempt, or by hand). */
    private static Optional<TableMetadata> readMetadata(FileIO io, PurgeEntry entry) {
        try {
            return Optional.of(TableMetadataParser.read(io, entry.metadataLocation()));
        } catch (NotFoundException gone) {
            return Optional.empty();
        }
    }

    /** Deletes leaves in batches, and a listing file alone once the leaves before it are gone. */
    private static final class Deleter implements TableFiles.Sink {
        private final FileIO io;
        private final List<String> leaves = new ArrayList<>();
        private long deleted;

        Deleter(FileIO io) {
            this.io = io;
        }

        @Override
        public void leaf(String file) {
            leaves.add(file);
            if (leaves.size() >= DELETE_BATCH) {
                flush();
            }
        }

        @Override
        public void listing(String file) {
            flush();
            io.deleteFile(file);
            deleted++;
        }

        void flush() {
            if (leaves.isEmpty()) {
                return;
            }
            if (io instanceof SupportsBulkOperations bulk) {
                try {
                    bulk.deleteFiles(leaves);
                } catch (BulkDeletionFailureException e) {
                    throw new IllegalStateException(
                            e.numberFailedObjects() + " of " + leaves.size() + " files could not be deleted", e);
                }
            } else {
                leaves.forEach(io::deleteFile);
            }
            deleted += leaves.size();
            leaves.clear();
        }
    }

    // ---- claims of other table entries

    /** Every table entry's location and metadata file, in every catalog, as of now. */
    private List<Claim> claims() {
        return lake.runner().read(Access.of(Principal.SYSTEM, Action.PURGE_TABLES, ObjectPath.ROOT), txn -> {
            List<Claim> claims = new ArrayList<>();
            for (String catalog : Catalogs.list(txn).keySet()) {
                collect(txn, ObjectPath.of(catalog), claims);
            }
            return claims;
        });
    }

    private static void collect(LakeTransaction txn, ObjectPath parent, List<Claim> claims) {
        for (CatalogObject table : txn.children(parent, ObjectType.TABLE)) {
            claims.add(new Claim(parent.child(table.id()), TableEntry.decode(table.value())));
        }
        for (CatalogObject namespace : txn.children(parent, ObjectType.NAMESPACE)) {
            collect(txn, parent.child(namespace.id()), claims);
        }
    }

    /** Who still uses the dropped table's files, if anyone. */
    private Optional<String> holder(PurgeEntry entry, TableMetadata metadata, List<Claim> claims) {
        Set<String> metadataFiles = new HashSet<>();
        metadataFiles.add(metadata.metadataFileLocation());
        metadata.previousFiles().forEach(previous -> metadataFiles.add(previous.file()));
        for (Claim claim : claims) {
            if (uses(claim.table(), entry.location(), metadata.uuid(), metadataFiles)) {
                return Optional.of("the table at " + claim.path() + " still uses its files");
            }
        }
        ObjectPath path = ObjectPath.parse(entry.path());
        for (NamedSnapshot snapshot : lake.runner().service().listSnapshots()) {
            Optional<CatalogObject> then = lake.runner().service().get(path, ReadPoint.snapshot(snapshot.name()));
            if (then.isPresent()
                    && ObjectType.TABLE.isTypeOf(then.get())
                    && uses(TableEntry.decode(then.get().value()), entry.location(), metadata.uuid(), metadataFiles)) {
                return Optional.of("the named snapshot '" + snapshot.name() + "' still holds the table");
            }
        }
        return Optional.empty();
    }

    /** Whether {@code table} may read files of the dropped table (uuid, metadata files, location). */
    private static boolean uses(TableEntry table, String location, String uuid, Set<String> metadataFiles) {
        if (table.metadataLocation() != null) {
            return (uuid != null && uuid.equals(table.uuid())) || metadataFiles.contains(table.metadataLocation());
        }
        return overlaps(table.location(), location);
    }

    private static boolean overlaps(String location, String purged) {
        return location != null
                && !Locations.hasDotSegment(location)
                && (Locations.isInside(location, purged) || Locations.isInside(purged, location));
    }

    /** The error's type and message, shortened; a store's message names the request, never a credential. */
    private static String describe(Throwable e) {
        String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH) + "…";
    }

    @Override
    public void close() {
        started = false;
        thread.shutdownNow();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
