package io.treecat.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.treecat.benchmarks.concurrency.ConcurrencyExperiment;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the suite's driver working: the smallest experiment of the {@code small} preset, cut to a
 * few seconds, writes its report, CSVs, charts and JSON. CI runs no benchmark for its figures.
 */
class TestSuite {
    @TempDir
    Path output;

    @Test
    void theConcurrencyExperimentWritesItsReportTablesAndCharts() throws Exception {
        ConcurrencyExperiment experiment = new ConcurrencyExperiment(ConcurrencyExperiment.Settings.of(Preset.SMALL)
                .withSecondsPerCell(0.4, 0.4)
                .withThreads(List.of(1, 2), List.of(0.5)));

        boolean failed =
                Suite.run(Preset.SMALL, List.of(experiment), output, false, "benchmarks/run.sh small concurrency");

        assertThat(failed).isFalse();
        String report = Files.readString(output.resolve("report.md"));
        assertThat(report)
                .contains("## Summary", "- **concurrency**: at 2 threads, OSPL commits ")
                .contains("## The machine", "| fsync p50 ms |", "## 1. Concurrency control")
                .contains(
                        "![Abort rate of read-write transactions by client threads (Fig. 7b)](concurrency/aborts.png)")
                .doesNotContain("This experiment failed");
        // Two thread counts and one share, each under the three protocols: a header and six rows.
        List<String> byThreads = Files.readAllLines(output.resolve("concurrency/by-threads.csv"));
        assertThat(byThreads).hasSize(7);
        assertThat(byThreads.get(0))
                .isEqualTo("protocol,threads,operations/s,read-write commits/s,abort rate %,read-write p99 ms");
        assertThat(byThreads.subList(1, 7))
                .extracting(line -> line.substring(0, line.indexOf(',')))
                .containsExactly("OSPL", "OSL", "MGL", "OSPL", "OSL", "MGL");
        for (String line : byThreads.subList(1, 7)) {
            double operationsPerSecond = Double.parseDouble(line.split(",")[2]);
            assertThat(operationsPerSecond).as(line).isPositive();
        }
        assertThat(Files.readAllLines(output.resolve("concurrency/by-share.csv")))
                .hasSize(4);
        for (String chart : List.of("throughput", "aborts", "p99", "p99-by-operation", "share-throughput")) {
            BufferedImage image =
                    ImageIO.read(output.resolve("concurrency/" + chart + ".png").toFile());
            assertThat(image).as(chart).isNotNull();
            assertThat(image.getWidth()).isEqualTo(820);
        }
        JsonNode results =
                new ObjectMapper().readTree(output.resolve("results.json").toFile());
        assertThat(results.path("preset").asText()).isEqualTo("small");
        assertThat(results.path("machine").path("cores").asInt()).isPositive();
        assertThat(results.path("experiments")
                        .get(0)
                        .path("tables")
                        .path("by-threads")
                        .path("rows"))
                .hasSize(6);
        assertThat(output.resolve("work")).doesNotExist();
    }

    @Test
    void aFailedExperimentIsReportedAndTheNextOneStillRuns() throws Exception {
        Experiment failing = new Probe("failing", run -> {
            run.table("partial", "What it measured before it failed", "step", "ms")
                    .add("one", 1.5);
            throw new IllegalStateException("the peer did not start");
        });
        Experiment passing = new Probe("passing", run -> run.note("It ran."));

        boolean failed = Suite.run(Preset.SMALL, List.of(failing, passing), output, false, "test");

        assertThat(failed).isTrue();
        String report = Files.readString(output.resolve("report.md"));
        assertThat(report)
                .contains("**This experiment failed**", "the peer did not start", "| one | 1.50 |", "It ran.")
                .contains("- **failing**: failed, see its section");
        assertThat(Files.readAllLines(output.resolve("failing/partial.csv"))).containsExactly("step,ms", "one,1.5");
    }

    /** A stand-in experiment for the suite's own behaviour. */
    private record Probe(String name, Body body) implements Experiment {
        interface Body {
            void run(ExperimentRun run) throws Exception;
        }

        @Override
        public String title() {
            return "Probe " + name;
        }

        @Override
        public String description() {
            return "A probe.";
        }

        @Override
        public void run(ExperimentRun run) throws Exception {
            body.run(run);
        }
    }
}
