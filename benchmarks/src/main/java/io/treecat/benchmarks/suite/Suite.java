package io.treecat.benchmarks.suite;

import io.treecat.benchmarks.ReplicationExperiment;
import io.treecat.benchmarks.ScanRatioExperiment;
import io.treecat.benchmarks.concurrency.BreadthDepthExperiment;
import io.treecat.benchmarks.concurrency.ConcurrencyExperiment;
import io.treecat.benchmarks.history.GrowthExperiment;
import io.treecat.benchmarks.hms.HmsExperiment;
import io.treecat.benchmarks.iceberg.ConflictsExperiment;
import io.treecat.benchmarks.iceberg.InsertsExperiment;
import io.treecat.benchmarks.retrieval.FileRetrievalExperiment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The benchmark suite's entry point, which {@code benchmarks/run.sh} calls: runs the chosen
 * experiments (all by default) at one preset, one after another, and writes the report after each,
 * so an interrupted run keeps what it measured.
 *
 * <p>Usage: {@code Suite [--out DIR] [--keep-work] [--publish] [--list] <small|medium|paper> [experiment…]}
 */
public final class Suite {
    private Suite() {}

    /** Every experiment, in the report's order. */
    public static List<Experiment> experiments() {
        return List.of(
                new ConcurrencyExperiment(),
                new BreadthDepthExperiment(),
                new FileRetrievalExperiment(),
                new HmsExperiment(),
                new InsertsExperiment(),
                new ConflictsExperiment(),
                new GrowthExperiment(),
                new ReplicationExperiment(),
                new ScanRatioExperiment());
    }

    public static void main(String[] args) throws Exception {
        // Iceberg's client logs every scan and commit at INFO: the report is the output, and progress goes to stderr.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        // Iceberg's retry loop logs every conflict it retries, with its stack: the experiments count them instead.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.iceberg.util.Tasks", "error");
        Path output = null;
        boolean keepWork = false;
        boolean publish = false;
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--out needs a directory");
                    }
                    output = Path.of(args[++i]);
                }
                case "--keep-work" -> keepWork = true;
                case "--publish" -> publish = true;
                case "--list" -> {
                    experiments().forEach(e -> System.out.printf("%-14s %s%n", e.name(), e.title()));
                    return;
                }
                default -> positional.add(args[i]);
            }
        }
        if (positional.isEmpty()) {
            throw new IllegalArgumentException(
                    "Usage: run.sh <small|medium|paper> [experiment…]; experiments: " + names(experiments()));
        }
        Preset preset = Preset.parse(positional.get(0));
        List<Experiment> chosen = choose(positional.subList(1, positional.size()));
        if (publish && chosen.size() != experiments().size()) {
            throw new IllegalArgumentException(
                    "--publish replaces docs/benchmarks.md with the run's report: run every experiment for it");
        }
        if (output == null) {
            output = Path.of(
                    "benchmarks",
                    "results",
                    preset.label() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        boolean failed = run(preset, chosen, output, keepWork, "benchmarks/run.sh " + String.join(" ", positional));
        System.err.println("Report: " + output.resolve("report.md"));
        if (publish && !failed) {
            Publisher.publish(output, chosen, Path.of("docs"));
            System.err.println("Published to docs/benchmarks.md and docs/benchmarks/");
        } else if (publish) {
            System.err.println("Not published: an experiment failed");
        }
        System.exit(failed ? 1 : 0);
    }

    /** Runs the experiments and writes the report; true when one of them failed. */
    public static boolean run(Preset preset, List<Experiment> chosen, Path output, boolean keepWork, String command)
            throws IOException {
        // Charts are drawn off screen, also where a display exists.
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(output);
        Path work = Files.createDirectories(output.resolve("work"));
        Instant started = Instant.now();
        MachineSummary machine = MachineSummary.measure(work);
        Report report = new Report(output, preset, command, started, machine);
        List<Report.Outcome> outcomes = new ArrayList<>();
        boolean failed = false;
        for (Experiment experiment : chosen) {
            Path directory = Files.createDirectories(work.resolve(experiment.name()));
            ExperimentRun run = new ExperimentRun(experiment, preset, directory);
            run.log("starting, preset %s", preset.label());
            long start = System.nanoTime();
            Optional<Throwable> failure = Optional.empty();
            try {
                experiment.run(run);
            } catch (Exception | AssertionError e) {
                failure = Optional.of(e);
                failed = true;
                run.log("FAILED: %s", e);
                e.printStackTrace();
            } finally {
                if (!keepWork) {
                    try {
                        Directories.delete(directory);
                    } catch (IOException e) {
                        // An experiment that failed may leave writers behind: its own failure is the one to report.
                        run.log("could not delete its work directory: %s", e);
                    }
                }
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            run.log("done in %.1f s", took.toMillis() / 1000.0);
            outcomes.add(new Report.Outcome(experiment, run, took, failure));
            report.write(outcomes);
        }
        if (!keepWork) {
            Directories.delete(work);
        }
        return failed;
    }

    private static List<Experiment> choose(List<String> names) {
        List<Experiment> all = experiments();
        if (names.isEmpty()) {
            return all;
        }
        Map<String, Experiment> byName = new LinkedHashMap<>();
        all.forEach(experiment -> byName.put(experiment.name(), experiment));
        List<Experiment> chosen = new ArrayList<>();
        for (String name : names) {
            Experiment experiment = byName.get(name);
            if (experiment == null) {
                throw new IllegalArgumentException("Unknown experiment '" + name + "'; there are " + names(all));
            }
            chosen.add(experiment);
        }
        return chosen;
    }

    private static String names(List<Experiment> experiments) {
        return String.join(", ", experiments.stream().map(Experiment::name).toList());
    }
}
