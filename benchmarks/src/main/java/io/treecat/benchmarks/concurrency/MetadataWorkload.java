package io.treecat.benchmarks.concurrency;

import static io.treecat.benchmarks.concurrency.TpcdsMetadata.CUSTOMERS;
import static io.treecat.benchmarks.concurrency.TpcdsMetadata.DATABASE;
import static io.treecat.benchmarks.concurrency.TpcdsMetadata.DIMENSION_TABLES;
import static io.treecat.benchmarks.concurrency.TpcdsMetadata.FACT_TABLES;
import static io.treecat.benchmarks.concurrency.TpcdsMetadata.ITEMS;
import static io.treecat.benchmarks.concurrency.TpcdsMetadata.MEGABYTE;
import static io.treecat.benchmarks.concurrency.TpcdsMetadata.SMALL_FILE;

import io.treecat.benchmarks.suite.Percentiles;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCategory;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.query.exec.QueryCursor;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.QueryRequest;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.txn.TransactionId;
import io.treecat.core.version.WriteOp;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.bson.BsonDocument;

/**
 * The paper's TPC-DS-derived metadata workload (§6.1): client threads pick operations at random,
 * optimize : fact insert : dimension insert : delete : read at 2 : 288 : 24 : 1 : 1260 by default
 * (a read-write share of 20 %), and run each as one transaction against {@link TpcdsMetadata}.
 *
 * <ul>
 *   <li><b>fact insert</b>: looks up the dimension files whose business keys overlap the new rows'
 *       customer and item ranges (the join with the dimensions), adds a small data file to one of the
 *       last week's partitions, and adds 1 to the table's file count;
 *   <li><b>dimension insert</b>: reads the files of a dimension (the customer table above all) whose
 *       key range overlaps the new rows', and adds a file;
 *   <li><b>optimize</b>: reads a recent partition's small files and replaces them with one;
 *   <li><b>delete</b>: reads an old partition's files and removes them;
 *   <li><b>read</b>: a read-only scan of a fact table's files over a day, a month or every day,
 *       sometimes with a predicate on the files' customer keys.
 * </ul>
 *
 * A conflict aborts the operation, counted, and the client moves on to its next one.
 */
public final class MetadataWorkload {
    /** The operation types, with their weights in the paper's mix. */
    public enum Operation {
        OPTIMIZE("optimize", 2),
        FACT_INSERT("fact insert", 288),
        DIMENSION_INSERT("dimension insert", 24),
        DELETE("delete", 1),
        READ("read", 1260);

        private final String label;
        private final int weight;

        Operation(String label, int weight) {
            this.label = label;
            this.weight = weight;
        }

        public String label() {
            return label;
        }

        boolean writes() {
            return this != READ;
        }
    }

    /** The read-write share of the paper's default mix: 315 of 1,575 operations. */
    public static final double DEFAULT_READ_WRITE_SHARE = 315.0 / 1575;

    private static final int RECENT_DAYS = 7;
    private static final long CUSTOMER_LOOKUP_WIDTH = 20_000;
    private static final long ITEM_LOOKUP_WIDTH = 2_000;

    /** What one operation type did in a run: latencies of those that committed, and the aborts. */
    public record OperationFigures(
            Operation operation, long committed, long aborted, double p50Millis, double p99Millis) {}

    /** A run's figures, per operation type. */
    public record Figures(double seconds, Map<Operation, OperationFigures> operations) {
        public long committed() {
            return operations.values().stream()
                    .mapToLong(OperationFigures::committed)
                    .sum();
        }

        public long committedWrites() {
            return operations.values().stream()
                    .filter(figures -> figures.operation().writes())
                    .mapToLong(OperationFigures::committed)
                    .sum();
        }

        public long aborted() {
            return operations.values().stream()
                    .mapToLong(OperationFigures::aborted)
                    .sum();
        }

        /** Aborted read-write transactions over all read-write transactions (reads never abort). */
        public double abortRate() {
            long writes = committedWrites() + aborted();
            return writes == 0 ? 0 : (double) aborted() / writes;
        }
    }

    private final CatalogService catalog;
    private final TpcdsMetadata metadata;
    private final double readWriteShare;

    public MetadataWorkload(CatalogService catalog, TpcdsMetadata metadata, double readWriteShare) {
        this.catalog = catalog;
        this.metadata = metadata;
        if (readWriteShare < 0 || readWriteShare > 1) {
            throw new IllegalArgumentException("The read-write share is between 0 and 1");
        }
        this.readWriteShare = readWriteShare;
    }

    /** Runs {@code threads} clients for {@code seconds}; rethrows the first error that is not a conflict. */
    public Figures run(int threads, double seconds, long seed) throws InterruptedException {
        List<Client> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            clients.add(new Client(t, new SplittableRandom(seed + 7919L * t)));
        }
        double elapsed = ClientThreads.run(threads, seconds, t -> clients.get(t)::next);
        Map<Operation, OperationFigures> figures = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
            long[] latencies = clients.stream()
                    .flatMapToLong(client -> Arrays.stream(client.latencies(operation)))
                    .toArray();
            long aborted = clients.stream()
                    .mapToLong(client -> client.aborted[operation.ordinal()])
                    .sum();
            figures.put(
                    operation,
                    new OperationFigures(
                            operation,
                            latencies.length,
                            aborted,
                            Percentiles.millis(latencies, 50),
                            Percentiles.millis(latencies, 99)));
        }
        return new Figures(elapsed, figures);
    }

    /** One client thread: its random source, its file names, and what it measured. */
    private final class Client {
        private final int number;
        private final SplittableRandom random;
        private final long[][] latencies = new long[Operation.values().length][1024];
        private final int[] counts = new int[Operation.values().length];
        private final long[] aborted = new long[Operation.values().length];
        private long files;

        Client(int number, SplittableRandom random) {
            this.number = number;
            this.random = random;
        }

        long[] latencies(Operation operation) {
            return Arrays.copyOf(latencies[operation.ordinal()], counts[operation.ordinal()]);
        }

        void next() {
            Operation operation = pick();
            long start = System.nanoTime();
            try {
                switch (operation) {
                    case OPTIMIZE -> optimize();
                    case FACT_INSERT -> factInsert();
                    case DIMENSION_INSERT -> dimensionInsert();
                    case DELETE -> delete();
                    case READ -> read();
                }
            } catch (CatalogException e) {
                if (e.category() != ErrorCategory.CONFLICT) {
                    throw e;
                }
                aborted[operation.ordinal()]++;
                return;
            }
            int index = operation.ordinal();
            if (counts[index] == latencies[index].length) {
                latencies[index] = Arrays.copyOf(latencies[index], counts[index] * 2);
            }
            latencies[index][counts[index]++] = System.nanoTime() - start;
        }

        private Operation pick() {
            if (random.nextDouble() >= readWriteShare) {
                return Operation.READ;
            }
            int writeWeights = 2 + 288 + 24 + 1;
            int draw = random.nextInt(writeWeights);
            for (Operation operation : Operation.values()) {
                if (operation.writes()) {
                    if (draw < operation.weight) {
                        return operation;
                    }
                    draw -= operation.weight;
                }
            }
            throw new AssertionError("weights add up to " + writeWeights);
        }

        private void factInsert() {
            String fact = FACT_TABLES.get(random.nextInt(FACT_TABLES.size()));
            long customer = random.nextLong(CUSTOMERS - CUSTOMER_LOOKUP_WIDTH);
            long item = random.nextLong(ITEMS - ITEM_LOOKUP_WIDTH);
            ReadWriteTransaction.run(catalog, txn -> {
                // The join of the new rows with the dimensions: only the files holding their keys.
                count(txn, dimensionLookup("customer", customer, customer + CUSTOMER_LOOKUP_WIDTH - 1));
                count(txn, dimensionLookup("item", item, item + ITEM_LOOKUP_WIDTH - 1));
                ObjectPath partition = TpcdsMetadata.table(fact).child(TpcdsMetadata.partition(recentDay()));
                String id = newFileId();
                return List.of(
                        new WriteOp.Add(
                                partition.child(id),
                                ObjectKind.LEAF,
                                TpcdsMetadata.factFile(
                                        TpcdsMetadata.location(fact, partition.id() + "/" + id),
                                        MEGABYTE + random.nextLong(SMALL_FILE - MEGABYTE),
                                        customer,
                                        customer + CUSTOMER_LOOKUP_WIDTH - 1,
                                        item,
                                        item + ITEM_LOOKUP_WIDTH - 1)),
                        filesDelta(fact, 1));
            });
        }

        private void dimensionInsert() {
            double draw = random.nextDouble();
            String dimension = draw < 0.6
                    ? "customer"
                    : draw < 0.8 ? "item" : DIMENSION_TABLES.get(random.nextInt(DIMENSION_TABLES.size()));
            long space = TpcdsMetadata.keySpace(dimension);
            long width = Math.max(1, space / 1000);
            long first = random.nextLong(space - width);
            ReadWriteTransaction.run(catalog, txn -> {
                // Changed rows of existing keys (slowly changing dimension): read the files they are in.
                count(txn, dimensionLookup(dimension, first, first + width - 1));
                String id = newFileId();
                return List.of(
                        new WriteOp.Add(
                                TpcdsMetadata.table(dimension).child(id),
                                ObjectKind.LEAF,
                                TpcdsMetadata.dimensionFile(
                                        TpcdsMetadata.location(dimension, id),
                                        MEGABYTE + random.nextLong(SMALL_FILE),
                                        first,
                                        first + width - 1)),
                        filesDelta(dimension, 1));
            });
        }

        private void optimize() {
            String fact = FACT_TABLES.get(random.nextInt(FACT_TABLES.size()));
            ObjectPath partition = TpcdsMetadata.table(fact).child(TpcdsMetadata.partition(recentDay()));
            ReadWriteTransaction.run(catalog, txn -> {
                List<CatalogObject> small = rows(txn, path(partition) + "/[size < " + SMALL_FILE + "]");
                if (small.size() < 2) {
                    return List.of();
                }
                List<WriteOp> writes = new ArrayList<>();
                long size = 0;
                long customerMin = Long.MAX_VALUE;
                long customerMax = Long.MIN_VALUE;
                long itemMin = Long.MAX_VALUE;
                long itemMax = Long.MIN_VALUE;
                for (CatalogObject file : small) {
                    writes.add(new WriteOp.Remove(file.path()));
                    BsonDocument stats = file.value().getDocument("stats");
                    size += file.value().getNumber("size").longValue();
                    customerMin = Math.min(customerMin, min(stats, "customer_sk"));
                    customerMax = Math.max(customerMax, max(stats, "customer_sk"));
                    itemMin = Math.min(itemMin, min(stats, "item_sk"));
                    itemMax = Math.max(itemMax, max(stats, "item_sk"));
                }
                String id = newFileId();
                writes.add(new WriteOp.Add(
                        partition.child(id),
                        ObjectKind.LEAF,
                        TpcdsMetadata.factFile(
                                TpcdsMetadata.location(fact, partition.id() + "/" + id),
                                size,
                                customerMin,
                                customerMax,
                                itemMin,
                                itemMax)));
                writes.add(filesDelta(fact, 1 - small.size()));
                return writes;
            });
        }

        private void delete() {
            String fact = FACT_TABLES.get(random.nextInt(FACT_TABLES.size()));
            LocalDate day = TpcdsMetadata.FIRST_DAY.plusDays(random.nextInt(Math.max(1, metadata.days() / 3)));
            ObjectPath partition = TpcdsMetadata.table(fact).child(TpcdsMetadata.partition(day));
            ReadWriteTransaction.run(catalog, txn -> {
                List<CatalogObject> files = rows(txn, path(partition) + "/*");
                List<WriteOp> writes = new ArrayList<>();
                files.forEach(file -> writes.add(new WriteOp.Remove(file.path())));
                if (!files.isEmpty()) {
                    writes.add(filesDelta(fact, -files.size()));
                }
                return writes;
            });
        }

        private void read() {
            String fact = FACT_TABLES.get(random.nextInt(FACT_TABLES.size()));
            double draw = random.nextDouble();
            int span = draw < 0.6 ? 1 : draw < 0.9 ? 30 : metadata.days();
            LocalDate last = metadata.lastDay();
            LocalDate first = last.minusDays(random.nextInt(Math.max(1, metadata.days() - span + 1)) + span - 1L);
            if (first.isBefore(TpcdsMetadata.FIRST_DAY)) {
                first = TpcdsMetadata.FIRST_DAY;
            }
            LocalDate until = first.plusDays(span - 1L);
            String files = random.nextBoolean()
                    ? "*"
                    : "[stats.customer_sk.min <= " + random.nextLong(CUSTOMERS) + " and stats.customer_sk.max >= "
                            + random.nextLong(CUSTOMERS) + "]";
            String query = "/[obj_id='" + DATABASE + "']/[obj_id='" + fact + "']/[part_val >= '" + first
                    + "' and part_val <= '" + until + "']/" + files;
            try (QueryCursor cursor = catalog.openQuery(QueryRequest.of(query).at(ReadPoint.LATEST))) {
                while (cursor.advance()) {
                    cursor.current();
                }
            }
        }

        private LocalDate recentDay() {
            return metadata.lastDay().minusDays(random.nextInt(Math.min(RECENT_DAYS, metadata.days())));
        }

        private String newFileId() {
            return "c" + number + "-" + files++;
        }
    }

    private static String dimensionLookup(String dimension, long first, long last) {
        return "/[obj_id='" + DATABASE + "']/[obj_id='" + dimension + "']/[stats.bk.max >= " + first
                + " and stats.bk.min <= " + last + "]";
    }

    private static String path(ObjectPath path) {
        StringBuilder query = new StringBuilder();
        for (String id : path.ids()) {
            query.append("/[obj_id='").append(id).append("']");
        }
        return query.toString();
    }

    private int count(TransactionId txn, String query) {
        return rows(txn, query).size();
    }

    private List<CatalogObject> rows(TransactionId txn, String query) {
        return ReadWriteTransaction.rows(catalog, txn, query);
    }

    private static WriteOp filesDelta(String table, long delta) {
        return new WriteOp.Merge(
                TpcdsMetadata.table(table), BsonDocument.parse("{files: {op: '+', val: " + delta + "}}"));
    }

    private static long min(BsonDocument stats, String column) {
        return stats.getDocument(column).getNumber("min").longValue();
    }

    private static long max(BsonDocument stats, String column) {
        return stats.getDocument(column).getNumber("max").longValue();
    }
}
