package io.treecat.benchmarks.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Makes a whole run the project's published figures: {@code docs/benchmarks.md} becomes its report,
 * and its charts and CSVs go to {@code docs/benchmarks/}, replacing the previous run's.
 */
final class Publisher {
    private static final String HEADER = """
            # Benchmarks

            This page is the latest full run of the benchmark suite, written by `benchmarks/run.sh <preset> --publish`
            (what each experiment does and how: `benchmarks/README.md`). Every figure below comes from that run; every
            comparison is between systems measured in the same run, alternating. Measurements made before the suite,
            feature by feature with their own drivers, are kept in [benchmarks-history.md](benchmarks-history.md).

            """;

    private Publisher() {}

    static void publish(Path runOutput, List<Experiment> experiments, Path docs) throws IOException {
        String report = Files.readString(runOutput.resolve("report.md"), StandardCharsets.UTF_8);
        // The report's own title gives way to the page's; its links point into docs/benchmarks/.
        String body = report.substring(report.indexOf('\n') + 1).stripLeading();
        for (Experiment experiment : experiments) {
            body = body.replace("](" + experiment.name() + "/", "](benchmarks/" + experiment.name() + "/");
        }
        Path figures = docs.resolve("benchmarks");
        Directories.delete(figures);
        for (Experiment experiment : experiments) {
            Path from = runOutput.resolve(experiment.name());
            if (!Files.isDirectory(from)) {
                continue;
            }
            Path to = Files.createDirectories(figures.resolve(experiment.name()));
            try (Stream<Path> files = Files.list(from)) {
                for (Path file : files.toList()) {
                    Files.copy(file, to.resolve(file.getFileName().toString()));
                }
            }
        }
        Files.writeString(docs.resolve("benchmarks.md"), HEADER + body, StandardCharsets.UTF_8);
    }
}
