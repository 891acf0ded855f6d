package io.treecat.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.server.Chromium;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;

/**
 * A table Spark wrote, in the web console of the packaged server (Debian's Chromium, headless): its snapshots, its
 * partitions and its files are the ones Spark's own metadata tables list.
 */
class ConsoleSparkIT {
    private static final String LAKE = "lake";

    @TempDir
    static Path directory;

    private static TreeCatServerProcess server;
    private static SparkSession spark;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws Exception {
        server = TreeCatServerProcess.start(directory);
        spark = SparkSessions.local("treecat-console", directory)
                .config("spark.sql.catalog." + LAKE, TreeCatCatalog.class.getName())
                .config("spark.sql.catalog." + LAKE + ".uri", server.restUri())
                .getOrCreate();
        browser = Chromium.headless(directory, 1280, 1000);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        SparkSessions.stop("ConsoleSparkIT", spark, server);
    }

    private static List<String> column(String section, int column) {
        return browser.findElements(By.cssSelector("#" + section + " tbody tr")).stream()
                .map(row -> row.findElements(By.tagName("td")).get(column).getText())
                .toList();
    }

    @Test
    void aTableSparkWroteShowsItsSnapshotsPartitionsAndFiles() throws Exception {
        spark.sql("CREATE NAMESPACE " + LAKE + ".web");
        spark.sql("CREATE TABLE " + LAKE + ".web.events (id BIGINT, day DATE) USING iceberg PARTITIONED BY (day)");
        spark.sql("INSERT INTO " + LAKE + ".web.events VALUES (1, DATE '2025-01-01'), (2, DATE '2025-01-02')");
        spark.sql("INSERT INTO " + LAKE + ".web.events VALUES (3, DATE '2025-01-02'), (4, DATE '2025-01-03')");
        List<String> sparkFiles =
                spark
                        .sql("SELECT file_path FROM " + LAKE + ".web.events.files ORDER BY file_path")
                        .collectAsList()
                        .stream()
                        .map(row -> row.getString(0))
                        .toList();
        assertThat(sparkFiles).hasSize(4);

        browser.get(server.restUri() + "/ui/#/browse/warehouse/web/events");
        Chromium.await(
                browser,
                "the table's two snapshots",
                () -> browser.findElements(By.cssSelector("#snapshots li")).size() == 2);
        assertThat(browser.findElement(By.cssSelector("#snapshots li.current")).getText())
                .contains("append");
        Chromium.await(
                browser, "its three partitions", () -> column("partitions", 0).size() == 3);
        assertThat(column("partitions", 0)).containsExactly("0:day=2025-01-01", "0:day=2025-01-02", "0:day=2025-01-03");
        Chromium.await(browser, "its four files", () -> column("files", 0).size() == 4);
        // Each file's full path is its link's title; they are the files Spark lists.
        List<String> shown = browser.findElements(By.cssSelector("#files tbody tr td a")).stream()
                .map(link -> link.getAttribute("title"))
                .sorted()
                .toList();
        assertThat(shown).isEqualTo(sparkFiles);
        assertThat(column("files", 3)).containsOnly("1");
        Chromium.screenshot(browser, "spark-table");
    }
}
