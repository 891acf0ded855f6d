package io.treecat.benchmarks.concurrency;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.treecat.benchmarks.concurrency.MetadataWorkload.Figures;
import io.treecat.benchmarks.concurrency.MetadataWorkload.Operation;
import io.treecat.benchmarks.concurrency.MetadataWorkload.OperationFigures;
import io.treecat.benchmarks.suite.Directories;
import io.treecat.benchmarks.suite.Experiment;
import io.treecat.benchmarks.suite.ExperimentRun;
import io.treecat.benchmarks.suite.Preset;
import io.treecat.benchmarks.suite.ResultTable;
import io.treecat.core.service.CatalogService;
import io.treecat.core.storage.rocksdb.RocksStoreOptions;
import io.treecat.core.txn.ConcurrencyProtocol;
import io.treecat.core.txn.TransactionConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Experiment 1, the paper's Figures 7 and 8: throughput, abort rate and p99 latency by operation
 * type of the TPC-DS-derived metadata workload ({@link MetadataWorkload}) under OSPL, OSL and MGL,
 * over the number of client threads and over the share of read-write transactions. Every cell
 * starts from the same catalog (a copy of one loaded template), in this process, on this disk.
 */
public final class ConcurrencyExperiment implements Experiment {
    /**
     * How much to run.
     *
     * @param secondsPerCell how long each (protocol, threads, share) cell runs
     * @param readWriteShares the shares swept at the highest thread count
     */
    public record Settings(
            TpcdsMetadata metadata,
            List<Integer> threads,
            List<Double> readWriteShares,
            double secondsPerCell,
            double warmupSeconds,
            Duration lockTimeout) {
        public Settings {
            requireNonNull(metadata, "metadata is null");
            threads = ImmutableList.copyOf(threads);
            readWriteShares = ImmutableList.copyOf(readWriteShares);
            requireNonNull(lockTimeout, "lockTimeout is null");
            if (threads.isEmpty() || secondsPerCell <= 0) {
                throw new IllegalArgumentException("Give at least one thread count and a positive duration");
            }
        }

        public static Settings of(Preset preset) {
            return new Settings(
                    preset.pick(new TpcdsMetadata(60, 4), new TpcdsMetadata(365, 10), new TpcdsMetadata(1826, 30)),
                    preset.pick(List.of(1, 4, 8), List.of(1, 2, 4, 8, 16), List.of(1, 2, 4, 8, 16, 24, 30)),
                    preset.pick(
                            List.of(0.05, 0.5, 0.8),
                            List.of(0.05, 0.5, 0.8, 1.0),
                            List.of(0.05, 0.1, 0.4, 0.6, 0.8, 1.0)),
                    preset.pick(2.0, 8.0, 30.0),
                    preset.pick(3.0, 10.0, 30.0),
                    Duration.ofMillis(500));
        }

        public Settings withSecondsPerCell(double seconds, double warmup) {
            return new Settings(metadata, threads, readWriteShares, seconds, warmup, lockTimeout);
        }

        public Settings withThreads(List<Integer> counts, List<Double> shares) {
            return new Settings(metadata, counts, shares, secondsPerCell, warmupSeconds, lockTimeout);
        }
    }

    private static final long SEED = 20_260_101L;

    private final Settings fixed;

    /** Sized by the run's preset. */
    public ConcurrencyExperiment() {
        this.fixed = null;
    }

    /** Sized by hand, whatever the preset (the suite's own test). */
    public ConcurrencyExperiment(Settings settings) {
        this.fixed = requireNonNull(settings, "settings is null");
    }

    @Override
    public String name() {
        return "concurrency";
    }

    @Override
    public String title() {
        return "Concurrency control: OSPL, OSL and MGL under the TPC-DS metadata workload (paper Figs. 7–8)";
    }

    @Override
    public String description() {
        return "Client threads run the paper's TPC-DS-derived metadata workload against one catalog in this process:"
                + " 24 tables, the 7 fact tables partitioned by date, operations optimize : fact insert : dimension"
                + " insert : delete : read = 2 : 288 : 24 : 1 : 1260 (20 % read-write), each one transaction; a"
                + " conflict aborts the operation and the client moves on. Fact inserts read the customer and item"
                + " files whose key ranges overlap their rows' (the join), so they conflict with a dimension insert"
                + " only when the ranges overlap under OSPL's precision locks, and with any insert into that"
                + " dimension under OSL's scan-range locks and MGL's table locks. Each cell starts from a copy of"
                + " the same loaded catalog. Unlike the paper's setup, clients and catalog share this machine's"
                + " cores.";
    }

    @Override
    public void run(ExperimentRun run) throws Exception {
        Settings settings = fixed != null ? fixed : Settings.of(run.preset());
        Path template = run.directory("template");
        long start = System.nanoTime();
        try (CatalogService catalog = CatalogService.open(template)) {
            settings.metadata().load(catalog, SEED);
        }
        run.log(
                "loaded %d days x %d files x %d fact tables in %.1f s",
                settings.metadata().days(),
                settings.metadata().filesPerPartition(),
                TpcdsMetadata.FACT_TABLES.size(),
                (System.nanoTime() - start) / 1e9);

        ResultTable byThreads = run.table(
                "by-threads",
                "Throughput and aborts by client threads, default mix (20 % read-write)",
                "protocol",
                "threads",
                "operations/s",
                "read-write commits/s",
                "abort rate %",
                "read-write p99 ms");
        ResultTable byOperation = run.table(
                "by-operation",
                "Latency by operation type (committed operations), default mix",
                "protocol",
                "threads",
                "operation",
                "committed",
                "aborted",
                "p50 ms",
                "p99 ms");
        ResultTable byShare = run.table(
                "by-share",
                "Throughput and aborts by read-write share, at "
                        + settings.threads().get(settings.threads().size() - 1) + " threads",
                "protocol",
                "read-write %",
                "operations/s",
                "abort rate %");

        int cell = 0;
        run.log("warm-up: OSPL, %.0f s", settings.warmupSeconds());
        measure(
                run,
                template,
                cell++,
                settings,
                ConcurrencyProtocol.OSPL,
                4,
                MetadataWorkload.DEFAULT_READ_WRITE_SHARE,
                settings.warmupSeconds());
        for (int threads : settings.threads()) {
            for (ConcurrencyProtocol protocol : ConcurrencyProtocol.values()) {
                Figures figures = measure(
                        run,
                        template,
                        cell++,
                        settings,
                        protocol,
                        threads,
                        MetadataWorkload.DEFAULT_READ_WRITE_SHARE,
                        settings.secondsPerCell());
                byThreads.add(
                        protocol.name(),
                        threads,
                        figures.committed() / figures.seconds(),
                        figures.committedWrites() / figures.seconds(),
                        100 * figures.abortRate(),
                        readWriteP99(figures));
                for (OperationFigures operation : figures.operations().values()) {
                    byOperation.add(
                            protocol.name(),
                            threads,
                            operation.operation().label(),
                            operation.committed(),
                            operation.aborted(),
                            operation.p50Millis(),
                            operation.p99Millis());
                }
            }
        }
        int most = settings.threads().get(settings.threads().size() - 1);
        for (double share : settings.readWriteShares()) {
            for (ConcurrencyProtocol protocol : ConcurrencyProtocol.values()) {
                Figures figures =
                        measure(run, template, cell++, settings, protocol, most, share, settings.secondsPerCell());
                byShare.add(
                        protocol.name(),
                        100 * share,
                        figures.committed() / figures.seconds(),
                        100 * figures.abortRate());
            }
        }

        run.lines(
                "throughput",
                "Operations/s by client threads (Fig. 7a)",
                byThreads,
                "threads",
                "operations/s",
                "protocol");
        run.lines(
                "aborts",
                "Abort rate of read-write transactions by client threads (Fig. 7b)",
                byThreads,
                "threads",
                "abort rate %",
                "protocol");
        run.lines(
                "p99",
                "p99 latency of read-write transactions by client threads (Fig. 8a)",
                byThreads,
                "threads",
                "read-write p99 ms",
                "protocol");
        ResultTable atMost = run.table(
                "by-operation-at-most-threads",
                "p99 latency by operation type at " + most + " threads (Fig. 8b)",
                "protocol",
                "operation",
                "p99 ms");
        for (List<Object> row : byOperation.rows()) {
            if (((Number) row.get(1)).intValue() == most
                    && !Operation.READ.label().equals(row.get(2))) {
                atMost.add(row.get(0), row.get(2), row.get(6));
            }
        }
        run.bars(
                "p99-by-operation",
                "p99 latency by operation type at " + most + " threads (Fig. 8b)",
                atMost,
                "operation",
                "p99 ms",
                "protocol");
        run.lines(
                "share-throughput",
                "Operations/s by read-write share at " + most + " threads (Fig. 7c)",
                byShare,
                "read-write %",
                "operations/s",
                "protocol");
        run.lines(
                "share-aborts",
                "Abort rate by read-write share at " + most + " threads (Fig. 7d)",
                byShare,
                "read-write %",
                "abort rate %",
                "protocol");
        run.note(summary(byThreads, most));
        run.finding(finding(byThreads, most));
    }

    private static Figures measure(
            ExperimentRun run,
            Path template,
            int cell,
            Settings settings,
            ConcurrencyProtocol protocol,
            int threads,
            double share,
            double seconds)
            throws Exception {
        Path directory = run.workDirectory().resolve("cell-" + cell);
        Directories.copy(template, directory);
        TransactionConfig config =
                TransactionConfig.defaults().withProtocol(protocol).withLockTimeout(settings.lockTimeout());
        try (CatalogService catalog = CatalogService.open(directory, RocksStoreOptions.defaults(), config)) {
            Figures figures =
                    new MetadataWorkload(catalog, settings.metadata(), share).run(threads, seconds, SEED + cell);
            run.log(
                    "%s, %d threads, %.0f%% read-write: %.0f operations/s, abort rate %.1f%%",
                    protocol, threads, 100 * share, figures.committed() / figures.seconds(), 100 * figures.abortRate());
            return figures;
        } finally {
            Directories.delete(directory);
        }
    }

    private static double readWriteP99(Figures figures) {
        return figures.operations().values().stream()
                .filter(operation -> operation.operation() != Operation.READ && operation.committed() > 0)
                .mapToDouble(OperationFigures::p99Millis)
                .max()
                .orElse(Double.NaN);
    }

    /** OSPL's read-write commits against the other two protocols' at the most threads, and the abort rates. */
    private static String finding(ResultTable byThreads, int most) {
        Map<String, List<Object>> rows = new HashMap<>();
        for (List<Object> row : byThreads.rows()) {
            if (((Number) row.get(1)).intValue() == most) {
                rows.put((String) row.get(0), row);
            }
        }
        double ospl = ((Number) rows.get("OSPL").get(3)).doubleValue();
        return String.format(
                Locale.ROOT,
                "at %d threads, OSPL commits %.2f× OSL's and %.2f× MGL's read-write transactions per second, aborting"
                        + " %.1f %% of them against %.1f %% and %.1f %%.",
                most,
                ospl / ((Number) rows.get("OSL").get(3)).doubleValue(),
                ospl / ((Number) rows.get("MGL").get(3)).doubleValue(),
                ((Number) rows.get("OSPL").get(4)).doubleValue(),
                ((Number) rows.get("OSL").get(4)).doubleValue(),
                ((Number) rows.get("MGL").get(4)).doubleValue());
    }

    /** The paragraph that says what the run showed, in figures read from its own table. */
    private static String summary(ResultTable byThreads, int most) {
        StringBuilder text = new StringBuilder("At " + most + " threads:");
        for (List<Object> row : byThreads.rows()) {
            if (((Number) row.get(1)).intValue() == most) {
                text.append(String.format(
                        Locale.ROOT,
                        " %s %.0f operations/s with %.1f %% of read-write transactions aborted;",
                        row.get(0),
                        ((Number) row.get(2)).doubleValue(),
                        ((Number) row.get(4)).doubleValue()));
            }
        }
        text.setLength(text.length() - 1);
        text.append(". The read-write p99 above is the slowest operation type's p99 in the cell.");
        return text.toString();
    }
}
