package io.treecat.benchmarks.suite;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a run's results: {@code report.md} with its charts beside it, one CSV per table, and {@code
 * results.json} with the machine and every table, under the run's output directory.
 */
final class Report {
    /** What one experiment left: its run, how long it took, and its failure if it failed. */
    record Outcome(Experiment experiment, ExperimentRun run, Duration took, Optional<Throwable> failure) {
        Outcome {
            requireNonNull(experiment, "experiment is null");
            requireNonNull(run, "run is null");
            requireNonNull(took, "took is null");
            requireNonNull(failure, "failure is null");
        }
    }

    private final Path output;
    private final Preset preset;
    private final String command;
    private final Instant started;
    private final MachineSummary machine;

    Report(Path output, Preset preset, String command, Instant started, MachineSummary machine) {
        this.output = requireNonNull(output, "output is null");
        this.preset = requireNonNull(preset, "preset is null");
        this.command = requireNonNull(command, "command is null");
        this.started = requireNonNull(started, "started is null");
        this.machine = requireNonNull(machine, "machine is null");
    }

    void write(List<Outcome> outcomes) throws IOException {
        StringBuilder markdown = new StringBuilder();
        Duration total = Duration.between(started, Instant.now());
        markdown.append("# TreeCat benchmark report\n\n");
        markdown.append(String.format(
                Locale.ROOT,
                "Run of %s UTC, preset `%s`, %d experiment(s), %.1f minutes in all. Reproduce with `%s`"
                        + " from the repository's root; `benchmarks/README.md` says what each experiment does.\n\n",
                started.truncatedTo(ChronoUnit.SECONDS)
                        .toString()
                        .replace('T', ' ')
                        .replace("Z", ""),
                preset.label(),
                outcomes.size(),
                total.toMillis() / 60_000.0,
                command));
        markdown.append("## Summary\n\n");
        for (Outcome outcome : outcomes) {
            for (String finding : outcome.run().findings()) {
                markdown.append("- **")
                        .append(outcome.experiment().name())
                        .append("**: ")
                        .append(finding)
                        .append('\n');
            }
            outcome.failure()
                    .ifPresent(failure -> markdown.append("- **")
                            .append(outcome.experiment().name())
                            .append("**: failed, see its section\n"));
        }
        markdown.append('\n');
        markdown.append("## The machine\n\n").append(machine.toMarkdown()).append('\n');
        List<Object> experiments = new ArrayList<>();
        int number = 1;
        for (Outcome outcome : outcomes) {
            Experiment experiment = outcome.experiment();
            Path directory = Files.createDirectories(output.resolve(experiment.name()));
            markdown.append("## ")
                    .append(number++)
                    .append(". ")
                    .append(experiment.title())
                    .append(" (`")
                    .append(experiment.name())
                    .append("`)\n\n");
            markdown.append(experiment.description()).append("\n\n");
            Map<String, Object> tables = new LinkedHashMap<>();
            for (ExperimentRun.Block block : outcome.run().blocks()) {
                if (block instanceof ExperimentRun.TableBlock tableBlock) {
                    ResultTable table = tableBlock.table();
                    table.writeCsv(directory.resolve(table.name() + ".csv"));
                    markdown.append(table.caption())
                            .append(" ([csv](")
                            .append(experiment.name())
                            .append('/')
                            .append(table.name())
                            .append(".csv))\n\n")
                            .append(table.toMarkdown())
                            .append('\n');
                    tables.put(table.name(), Map.of("columns", table.columns(), "rows", table.rows()));
                } else if (block instanceof ExperimentRun.ChartBlock chartBlock) {
                    Chart chart = chartBlock.chart();
                    if (chart.table().rows().isEmpty()) {
                        continue;
                    }
                    chart.draw(directory);
                    markdown.append("![")
                            .append(chart.title())
                            .append("](")
                            .append(experiment.name())
                            .append('/')
                            .append(chart.name())
                            .append(".png)\n\n");
                } else if (block instanceof ExperimentRun.NoteBlock note) {
                    markdown.append(note.markdown()).append("\n\n");
                }
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("name", experiment.name());
            result.put("title", experiment.title());
            result.put("seconds", outcome.took().toMillis() / 1000.0);
            outcome.failure().ifPresent(failure -> result.put("failure", String.valueOf(failure)));
            result.put("tables", tables);
            experiments.add(result);
            if (outcome.failure().isPresent()) {
                markdown.append("**This experiment failed** after ")
                        .append(outcome.took().toSeconds())
                        .append(" s: `")
                        .append(String.valueOf(outcome.failure().get()).replace('`', '\''))
                        .append("`. What it recorded before is above; the stack trace is in the run's log.\n\n");
            } else {
                markdown.append(String.format(
                        Locale.ROOT, "_Took %.1f minutes._\n\n", outcome.took().toMillis() / 60_000.0));
            }
        }
        Files.writeString(output.resolve("report.md"), markdown.toString(), StandardCharsets.UTF_8);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("started", started.toString());
        json.put("preset", preset.label());
        json.put("command", command);
        json.put("machine", machine.facts());
        json.put("experiments", experiments);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(output.resolve("results.json").toFile(), json);
    }
}
