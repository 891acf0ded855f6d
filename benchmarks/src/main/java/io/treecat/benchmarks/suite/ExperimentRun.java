package io.treecat.benchmarks.suite;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What one experiment is given (its preset, a scratch directory) and what it records: tables,
 * charts and notes, kept in the order recorded, which is their order in the report.
 */
public final class ExperimentRun {
    /** One part of an experiment's section in the report. */
    sealed interface Block permits TableBlock, ChartBlock, NoteBlock {}

    record TableBlock(ResultTable table) implements Block {}

    record ChartBlock(Chart chart) implements Block {}

    record NoteBlock(String markdown) implements Block {}

    private final Experiment experiment;
    private final Preset preset;
    private final Path workDirectory;
    private final List<Block> blocks = new ArrayList<>();
    private final List<String> findings = new ArrayList<>();

    ExperimentRun(Experiment experiment, Preset preset, Path workDirectory) {
        this.experiment = requireNonNull(experiment, "experiment is null");
        this.preset = requireNonNull(preset, "preset is null");
        this.workDirectory = requireNonNull(workDirectory, "workDirectory is null");
    }

    public Preset preset() {
        return preset;
    }

    /** An empty directory for the experiment's stores and peers; the suite deletes it afterwards. */
    public Path workDirectory() {
        return workDirectory;
    }

    /** A fresh subdirectory of the work directory. */
    public Path directory(String name) throws IOException {
        return Files.createDirectories(workDirectory.resolve(name));
    }

    public synchronized ResultTable table(String name, String caption, String... columns) {
        ResultTable table = new ResultTable(name, caption, Arrays.asList(columns));
        if (tables().stream().anyMatch(existing -> existing.name().equals(name))) {
            throw new IllegalArgumentException("Experiment " + experiment.name() + " has two tables named " + name);
        }
        blocks.add(new TableBlock(table));
        return table;
    }

    /** Lines of {@code y} over a numeric {@code x}, one per distinct value of the series columns. */
    public synchronized void lines(
            String name, String title, ResultTable table, String x, String y, String... seriesColumns) {
        blocks.add(new ChartBlock(new Chart(name, title, Chart.Kind.LINES, table, x, y, List.of(seriesColumns))));
    }

    /** Grouped bars of {@code y} for each value of {@code x}, one bar per distinct value of the series columns. */
    public synchronized void bars(
            String name, String title, ResultTable table, String x, String y, String... seriesColumns) {
        blocks.add(new ChartBlock(new Chart(name, title, Chart.Kind.BARS, table, x, y, List.of(seriesColumns))));
    }

    /** A paragraph of the report, in markdown: what the figures mean, where TreeCat is behind, what was left out. */
    public synchronized void note(String markdown) {
        blocks.add(new NoteBlock(markdown));
    }

    /**
     * One line for the report's summary at its top: a comparison this run measured, in figures, whichever way it
     * came out. Say where TreeCat is behind as plainly as where it is ahead.
     */
    public synchronized void finding(String markdown) {
        findings.add(markdown);
    }

    synchronized List<String> findings() {
        return List.copyOf(findings);
    }

    /** Progress on stderr, with the time and the experiment's name. */
    public void log(String format, Object... args) {
        System.err.printf(
                Locale.ROOT,
                "%s [%s] %s%n",
                LocalTime.now().truncatedTo(ChronoUnit.SECONDS),
                experiment.name(),
                String.format(Locale.ROOT, format, args));
    }

    synchronized List<Block> blocks() {
        return List.copyOf(blocks);
    }

    synchronized List<ResultTable> tables() {
        return blocks.stream()
                .filter(TableBlock.class::isInstance)
                .map(block -> ((TableBlock) block).table())
                .toList();
    }
}
