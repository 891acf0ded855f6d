package io.treecat.lakehouse.idempotency;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.QueryRequest;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Principal;
import io.treecat.lakehouse.model.IdempotencyKeyEntry;
import io.treecat.lakehouse.model.IdempotencyKeysEntry;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.PathSteps;
import io.treecat.lakehouse.txn.RetryPolicy;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable half of idempotency keys: for each key whose request committed, a record written in that very commit
 * (through {@link TransactionRunner#attach}), so that a client retrying after the server died between its commit and
 * its answer is answered from the record instead of running the request twice. The layout:
 *
 * <pre>
 * /.idempotency_keys          {@link IdempotencyKeysEntry} (made by the first record)
 * /.idempotency_keys/&lt;key&gt;    {@link IdempotencyKeyEntry}: the request's fingerprint, when the key was first used,
 *                             and the outcome its answer is rebuilt from
 * </pre>
 *
 * The area sits beside the catalogs at the root (one key space for the whole server, as a client's keys are), and
 * is no catalog. A record is written only with the change it stands for: a request that fails, or whose commit
 * loses, leaves none. Records live {@code lifetime} from the key's first use: an expired one reads as absent (and
 * the next request with the key replaces it), and {@link #collect} removes expired ones, and the oldest beyond
 * {@code maxRecords}, in bounded batches, so the area stays bounded. The record is blind-written (no read of the
 * key's path in the request's transaction), so requests with different keys never conflict over it.
 */
public final class IdempotencyRecords {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyRecords.class);

    /** How many records one collection removes at most (one commit). */
    public static final int COLLECT_BATCH = 1000;
    /** How often {@link #collectIfDue} collects. */
    public static final Duration COLLECT_INTERVAL = Duration.ofMinutes(1);

    private static final ObjectPath ROOT = ObjectPath.of(LakeKeys.IDEMPOTENCY_KEYS_ID);

    private final TransactionRunner runner;
    private final Clock clock;
    private final Duration lifetime;
    private final int maxRecords;
    private final AtomicLong lastCollection = new AtomicLong(Long.MIN_VALUE);

    /** A key's record, as a repeat of its request is answered from. */
    public record Found(String fingerprint, Instant created, Map<String, List<String>> outcome) {
        public Found {
            requireNonNull(fingerprint, "fingerprint is null");
            requireNonNull(created, "created is null");
            outcome = Map.copyOf(outcome);
        }
    }

    public IdempotencyRecords(TransactionRunner runner, Clock clock, Duration lifetime, int maxRecords) {
        this.runner = requireNonNull(runner, "runner is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.lifetime = requireNonNull(lifetime, "lifetime is null");
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("Invalid idempotency key lifetime: " + lifetime);
        }
        if (maxRecords < 1) {
            throw new IllegalArgumentException("maxRecords must be positive: " + maxRecords);
        }
        this.maxRecords = maxRecords;
    }

    /** The area's path (for docs and tests). */
    public static ObjectPath root() {
        return ROOT;
    }

    private static Access access() {
        return Access.of(Principal.ANONYMOUS, Action.MANAGE_IDEMPOTENCY_KEYS, ROOT);
    }

    /** The record of {@code key}, unless there is none or it expired. */
    public Optional<Found> find(String key) {
        long oldest = clock.millis() - lifetime.toMillis();
        return runner.read(
                access(),
                txn -> txn.read(ROOT.child(key))
                        .filter(ObjectType.IDEMPOTENCY_KEY::isTypeOf)
                        .map(object -> IdempotencyKeyEntry.decode(object.value()))
                        .filter(entry -> entry.created() >= oldest)
                        .map(entry -> new Found(
                                entry.fingerprint(), Instant.ofEpochMilli(entry.created()), entry.outcome())));
    }

    /**
     * Binds {@code key}'s record to the calling thread ({@link TransactionRunner#attach}): the commit the request
     * makes on this thread writes it too, with the outcome {@code outcome} derives from the operation's result.
     * Close the answer when the request ends.
     */
    public TransactionRunner.Attached attach(
            String key, String fingerprint, Instant firstSeen, Function<Object, Map<String, List<String>>> outcome) {
        requireNonNull(key, "key is null");
        requireNonNull(fingerprint, "fingerprint is null");
        requireNonNull(firstSeen, "firstSeen is null");
        requireNonNull(outcome, "outcome is null");
        return runner.attach((txn, result) ->
                stage(txn, key, IdempotencyKeyEntry.of(fingerprint, firstSeen.toEpochMilli(), outcome.apply(result))));
    }

    /** Unbinds whatever record the calling thread still carries (a new request on a reused thread). */
    public void detach() {
        runner.detach();
    }

    private static void stage(LakeTransaction txn, String key, IdempotencyKeyEntry entry) {
        // A point read of the area, which only its first record ever writes: it makes no conflict with other keys.
        if (!ObjectType.IDEMPOTENCY_KEYS.isTypeOf(txn.read(ROOT))) {
            txn.add(ROOT, new IdempotencyKeysEntry());
        }
        // Replaces an expired record of the same key (a live one answered the request before it ran).
        txn.update(ROOT.child(key), entry);
    }

    /** Runs {@link #collect} if the last collection is {@link #COLLECT_INTERVAL} ago; never fails its caller. */
    public void collectIfDue() {
        long now = clock.millis();
        long last = lastCollection.get();
        if (last != Long.MIN_VALUE && now - last < COLLECT_INTERVAL.toMillis()) {
            return;
        }
        if (!lastCollection.compareAndSet(last, now)) {
            return;
        }
        try {
            int removed = collect();
            if (removed > 0) {
                LOG.debug("Collected {} idempotency key records", removed);
            }
        } catch (RuntimeException e) {
            LOG.warn("Collecting expired idempotency key records failed; the next collection tries again", e);
        }
    }

    /**
     * Removes up to {@link #COLLECT_BATCH} records in one commit: expired ones first, then, while more than
     * {@code maxRecords} are left, the oldest. Decided on a snapshot, then each removal re-read in the removing
     * transaction (a point read), so a record a request replaced meanwhile stays. Answers how many went.
     */
    public int collect() {
        long oldest = clock.millis() - lifetime.toMillis();
        Map<String, Long> doomed = runner.read(access(), txn -> doomed(txn, oldest));
        if (doomed.isEmpty()) {
            return 0;
        }
        return runner.write(access(), RetryPolicy.DEFAULT, txn -> {
            int removed = 0;
            for (Map.Entry<String, Long> key : doomed.entrySet()) {
                Optional<CatalogObject> record = txn.read(ROOT.child(key.getKey()));
                // Only the record the snapshot saw: one a request wrote since (a key used again) stays.
                if (ObjectType.IDEMPOTENCY_KEY.isTypeOf(record)
                        && IdempotencyKeyEntry.decode(record.get().value()).created() == key.getValue()) {
                    txn.remove(ROOT.child(key.getKey()));
                    removed++;
                }
            }
            return removed;
        });
    }

    /** The keys to remove (with the creation time seen), read at a snapshot: expired ones, then the oldest while over the bound. */
    private Map<String, Long> doomed(LakeTransaction txn, long oldest) {
        Map<String, Long> doomed = new LinkedHashMap<>();
        if (!ObjectType.IDEMPOTENCY_KEYS.isTypeOf(txn.read(ROOT))) {
            return doomed;
        }
        String expired = PathSteps.of(ROOT) + "/[" + LakeKeys.CREATED + " < " + oldest + "]";
        for (CatalogObject row :
                txn.query(QueryRequest.of(expired).withLimit(COLLECT_BATCH)).rows()) {
            doomed.put(row.id(), IdempotencyKeyEntry.decode(row.value()).created());
        }
        if (doomed.size() == COLLECT_BATCH) {
            return doomed;
        }
        // Only the creation times, every page: the bound's check reads the area once per collection.
        List<CatalogObject> records = txn.queryAll(QueryRequest.of(PathSteps.of(ROOT) + "/*")
                .withProjection(List.of(LakeKeys.OBJ_TYPE, LakeKeys.CREATED))
                .withLimit(QueryRequest.MAX_LIMIT));
        int over = records.size() - doomed.size() - maxRecords;
        if (over > 0) {
            records.stream()
                    .filter(row -> !doomed.containsKey(row.id()) && row.value().isNumber(LakeKeys.CREATED))
                    .map(row -> Map.entry(
                            row.id(), row.value().getNumber(LakeKeys.CREATED).longValue()))
                    .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
                    .limit(Math.min(over, COLLECT_BATCH - doomed.size()))
                    .forEach(entry -> doomed.put(entry.getKey(), entry.getValue()));
        }
        return doomed;
    }
}
