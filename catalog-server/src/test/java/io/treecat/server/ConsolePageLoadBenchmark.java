package io.treecat.server;

import io.dropwizard.testing.ConfigOverride;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;

/**
 * How long the console's main pages take to show in a real browser on a catalog of N files (issue 22's "under 1 s on
 * 1M files"): a table of N file leaves over 1,000 partitions, bulk-loaded through {@code POST /treecat/v1/load}; then
 * each page is loaded from {@code about:blank} (a full page load: HTML, modules, the API calls it makes) until its
 * content is there, 2 warm-up and 7 measured loads, median and max. Run by hand (not a test):
 *
 * <pre>
 * ./mvnw -q -pl catalog-server test-compile
 * ./mvnw -q -pl catalog-server dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -Xmx4g -cp catalog-server/target/test-classes:catalog-server/target/classes:$(cat /tmp/cp.txt) \
 *   io.treecat.server.ConsolePageLoadBenchmark 1000000
 * </pre>
 */
public final class ConsolePageLoadBenchmark {
    private static final int PARTITIONS = 1000;
    private static final int WARM_UP = 2;
    private static final int MEASURED = 7;

    private ConsolePageLoadBenchmark() {}

    public static void main(String[] args) throws Exception {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path directory = Files.createTempDirectory("console-bench");
        try (TreeCatTestServer server =
                new TreeCatTestServer(directory, ConfigOverride.config("retention.gc-enabled", "false"))) {
            long before = newest(server);
            long started = System.nanoTime();
            TreeCatTestServer.Reply loaded =
                    server.postStreamed("/treecat/v1/load?chunkSize=10000", () -> lines(files));
            if (loaded.status() != 200) {
                throw new IllegalStateException("load failed: " + loaded.body());
            }
            System.out.printf(
                    Locale.ROOT,
                    "loaded %,d files in %.1f s (%s)%n",
                    files,
                    (System.nanoTime() - started) / 1e9,
                    loaded.body());
            long after = newest(server);
            WebDriver browser = Chromium.headless(directory, 1280, 1000);
            try {
                String base = "http://127.0.0.1:" + server.port() + "/ui/#";
                System.out.println("| page | what it shows | median (ms) | max (ms) |");
                System.out.println("|---|---|---|---|");
                measure(browser, base + "/browse", "the catalogs", () -> rows(browser, "children") >= 1);
                measure(
                        browser,
                        base + "/browse/bench/sales/orders",
                        "the table: properties, first 50 partitions and" + " 50 files",
                        () -> rows(browser, "partitions") == 50 && rows(browser, "files") == 50);
                measure(
                        browser,
                        base + "/browse/bench/sales/orders/p0500",
                        "a partition: first 50 of its files",
                        () -> rows(browser, "files") == 50);
                measure(
                        browser,
                        base + "/browse/bench/sales/orders/p0500?vid=" + before,
                        "the same at a vid before the" + " load (a clear NOT_FOUND)",
                        () -> !browser.findElements(By.cssSelector("[role=alert]"))
                                .isEmpty());
                measure(
                        browser,
                        base + "/query?q="
                                + java.net.URLEncoder.encode(
                                        "/[obj_id='bench']/[obj_id='sales']/[obj_id='orders']/*/[record_count > 500]",
                                        StandardCharsets.UTF_8),
                        "a query: its first 100 rows and the plan",
                        () -> browser.findElements(By.cssSelector("#results tbody tr"))
                                        .size()
                                == 100);
                measure(
                        browser,
                        base + "/activity",
                        "the newest 50 commits",
                        () -> browser.findElements(By.cssSelector("#commits > li"))
                                        .size()
                                >= 50);
                measure(
                        browser,
                        base + "/compare/bench/sales/orders?from=" + before + "&to=" + after,
                        "a comparison across the load (" + (after - before) + " commits)",
                        () -> !browser.findElements(By.id("compare-summary")).isEmpty());
            } finally {
                browser.quit();
            }
        }
    }

    private static long newest(TreeCatTestServer server) {
        return server.get("/treecat/v1/query?q=%2F*&limit=1").json().get("vid").asLong();
    }

    private static int rows(WebDriver browser, String section) {
        return browser.findElements(By.cssSelector("#" + section + " tbody tr")).size();
    }

    private static void measure(WebDriver browser, String url, String what, Supplier<Boolean> shown) throws Exception {
        List<Double> times = new ArrayList<>();
        for (int run = 0; run < WARM_UP + MEASURED; run++) {
            browser.get("about:blank");
            long start = System.nanoTime();
            browser.get(url);
            Chromium.await(browser, what, shown);
            double ms = (System.nanoTime() - start) / 1e6;
            if (run >= WARM_UP) {
                times.add(ms);
            }
        }
        Collections.sort(times);
        System.out.printf(
                Locale.ROOT,
                "| `%s` | %s | %.0f | %.0f |%n",
                url.substring(url.indexOf('#') + 1),
                what,
                times.get(times.size() / 2),
                times.get(times.size() - 1));
    }

    /** The catalog as JSON lines: /bench/sales/orders, 1,000 partitions, {@code files} leaves spread over them. */
    private static InputStream lines(int files) {
        List<InputStream> parts = new ArrayList<>();
        parts.add(text("{\"path\": \"/bench\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"database\"}}\n"
                + "{\"path\": \"/bench/sales\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"namespace\"}}\n"
                + "{\"path\": \"/bench/sales/orders\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"table\","
                + " \"format\": \"parquet\"}}\n"));
        int perPartition = Math.max(1, files / PARTITIONS);
        Enumeration<InputStream> partitions = new Enumeration<>() {
            private int partition;

            @Override
            public boolean hasMoreElements() {
                return partition < PARTITIONS;
            }

            @Override
            public InputStream nextElement() {
                int p = partition++;
                StringBuilder chunk = new StringBuilder(perPartition * 220);
                String id = String.format(Locale.ROOT, "p%04d", p);
                chunk.append("{\"path\": \"/bench/sales/orders/")
                        .append(id)
                        .append("\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"partition\", \"part_val\": \"")
                        .append(id)
                        .append("\"}}\n");
                for (int f = 0; f < perPartition; f++) {
                    chunk.append("{\"path\": \"/bench/sales/orders/")
                            .append(id)
                            .append("/f")
                            .append(String.format(Locale.ROOT, "%06d", f))
                            .append(
                                    ".parquet\", \"kind\": \"leaf\", \"value\": {\"obj_type\": \"file\", \"content\": \"data\","
                                            + " \"file_path\": \"s3://lake/orders/")
                            .append(id)
                            .append("/f")
                            .append(f)
                            .append(".parquet\", \"file_format\": \"PARQUET\", \"record_count\": ")
                            .append(f)
                            .append(", \"file_size_in_bytes\": ")
                            .append(f * 1000L)
                            .append(", \"lower\": {\"id\": ")
                            .append(f)
                            .append("}, \"upper\": {\"id\": ")
                            .append(f + 1000)
                            .append("}}}\n");
                }
                return text(chunk.toString());
            }
        };
        parts.add(new SequenceInputStream(partitions));
        return new SequenceInputStream(Collections.enumeration(parts));
    }

    private static InputStream text(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }
}
