package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestDemoCommand {
    @TempDir
    Path data;

    private String runDemo() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new DemoCommand(data, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void loadsTheSampleOnceAndAnswersThePapersQueries() {
        String first = runDemo();
        assertThat(first).contains("Loaded the sample retail catalog: 89 objects at version 1");
        // Region US, dates after 2025-01-01, files whose price minimum is above 5.
        assertThat(first).contains("leaf  /retail/sales/region=US/date=2025-01-02/part-00047.parquet");
        assertThat(first).doesNotContain("leaf  /retail/sales/region=EU/");
        assertThat(first).contains("(7 rows at version 1)");
        assertThat(first).contains("/retail/sales at snapshot:  {\"obj_type\": \"table\"");
        assertThat(first).contains("reader committed at version 3: the new file does not match its predicate");
        assertThat(first)
                .contains(
                        "reader aborted: Commit conflict: /retail/sales/region=US/date=2025-01-02/demo-3.parquet changed after version 3");

        // A second run finds the data already on disk and time-travels over the first run's commits.
        String second = runDemo();
        assertThat(second).doesNotContain("Loaded the sample");
        assertThat(second).contains("(newest version: 5)");
        assertThat(second).contains("\"commits\": 2");
    }

    @Test
    void unknownCommandsAndOptionsFailWithUsage() {
        assertThat(TreeCatMain.run(new String[] {"launch"})).isEqualTo(2);
        assertThat(TreeCatMain.run(new String[] {"demo", "--nope"})).isEqualTo(2);
    }
}
