package io.treecat.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code treecat} command line, run through the real launcher {@code bin/treecat}, against a
 * real server (gRPC on an ephemeral loopback port). Runs after {@code package} (failsafe).
 */
class TreeCatCliIT {
    @TempDir
    Path directory;

    private TreeCatTestServer server;
    private int runs;

    @BeforeEach
    void start() throws Exception {
        server = new TreeCatTestServer(directory.resolve("server"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private record Run(int exitCode, String out, String err) {}

    private Run treecat(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher().toString()));
        command.add(arguments[0]);
        command.add("--server");
        command.add(server.grpcTarget());
        command.addAll(List.of(arguments).subList(1, arguments.length));
        Path out = directory.resolve("out" + runs + ".txt");
        Path err = directory.resolve("err" + runs++ + ".txt");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().put("TREECAT_NO_BUILD", "1");
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static Path launcher() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("bin/treecat"))) {
                return dir.resolve("bin/treecat");
            }
        }
        throw new IllegalStateException(
                "bin/treecat not found above " + Path.of("").toAbsolutePath());
    }

    @Test
    void commitQueryGetSnapshotCloneLoadAndExport() throws Exception {
        Path writes = directory.resolve("writes.json");
        Files.writeString(
                writes,
                "{\"writes\": ["
                        + "{\"op\": \"add\", \"path\": \"/retail\", \"value\": {\"obj_type\": \"database\"}},"
                        + "{\"op\": \"add\", \"path\": \"/retail/sales\", \"value\": {\"obj_type\": \"table\"}}]}");
        Run committed = treecat("commit", writes.toString());
        assertThat(committed.exitCode()).as(committed.err()).isZero();
        // vid 1 is the server's own: the HMS listener's default database, made at the first start.
        assertThat(committed.out()).isEqualTo("{\"vid\": 2, \"changes\": 2}\n");

        Path lines = directory.resolve("files.jsonl");
        StringBuilder records = new StringBuilder();
        for (int i = 0; i < 2500; i++) {
            records.append("{\"path\": \"/retail/sales/f")
                    .append(i)
                    .append("\", \"kind\": \"leaf\", \"value\": {\"size\": ")
                    .append(i)
                    .append("}}\n");
        }
        Files.writeString(lines, records);
        Run loaded = treecat("load", lines.toString(), "--chunk", "1000");
        assertThat(loaded.exitCode()).as(loaded.err()).isZero();
        assertThat(loaded.out()).startsWith("{\"records\": 2500, \"commits\": 3, \"firstVid\": 3, \"lastVid\": 5,");
        assertThat(loaded.err()).contains("100% [##############################] 2,500 records");

        Run query = treecat("query", "/[obj_id='retail']/[obj_id='sales']/[size >= 2497]");
        assertThat(query.exitCode()).as(query.err()).isZero();
        assertThat(query.out().lines())
                .containsExactly(
                        "{\"path\": \"/retail/sales/f2497\", \"kind\": \"leaf\", \"version\": 5, \"value\": {\"size\": 2497}}",
                        "{\"path\": \"/retail/sales/f2498\", \"kind\": \"leaf\", \"version\": 5, \"value\": {\"size\": 2498}}",
                        "{\"path\": \"/retail/sales/f2499\", \"kind\": \"leaf\", \"version\": 5, \"value\": {\"size\": 2499}}");

        Run table = treecat("get", "/retail/sales", "--format", "table");
        assertThat(table.out().lines())
                .containsExactly(
                        "KIND   VERSION   PATH                                                VALUE",
                        "inner  2         /retail/sales                                       {\"obj_type\": \"table\"}");

        assertThat(treecat("snapshot", "create", "before-clone").out())
                .isEqualTo("{\"name\": \"before-clone\", \"vid\": 5}\n");
        assertThat(treecat("snapshot", "list").out()).isEqualTo("{\"name\": \"before-clone\", \"vid\": 5}\n");
        assertThat(treecat("clone", "/retail", "/retail_dev", "--snapshot", "before-clone")
                        .out())
                .isEqualTo("{\"vid\": 6, \"changes\": 2502}\n");
        assertThat(treecat("query", "/[obj_id='retail_dev']/*/*", "--vid", "5").out())
                .isEmpty();

        Path exported = directory.resolve("export.jsonl");
        Run export = treecat("export", "/retail_dev", "--output", exported.toString());
        assertThat(export.exitCode()).as(export.err()).isZero();
        List<String> exportedLines = Files.readAllLines(exported);
        assertThat(exportedLines).hasSize(2502);
        assertThat(exportedLines.get(0))
                .isEqualTo("{\"path\": \"/retail_dev\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"database\"}}");
        assertThat(exportedLines.get(1))
                .isEqualTo(
                        "{\"path\": \"/retail_dev/sales\", \"kind\": \"inner\", \"value\": {\"obj_type\": \"table\"}}");
        assertThat(exportedLines.get(2))
                .isEqualTo(
                        "{\"path\": \"/retail_dev/sales/f0\", \"kind\": \"leaf\", \"value\": {\"size\": {\"$numberInt\": \"0\"}}}");
    }

    @Test
    void errorsAreOneLineWithANonZeroExit() throws Exception {
        Run syntax = treecat("query", "/[obj_id = 'retail'");
        assertThat(syntax.exitCode()).isNotZero();
        assertThat(syntax.out()).isEmpty();
        assertThat(syntax.err().lines()).hasSize(1);
        assertThat(syntax.err())
                .startsWith(
                        "treecat: QUERY_SYNTAX_ERROR: Syntax error at line 1, column 20: expected ']' but found end of query");

        Run missing = treecat("get", "/nope");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.err()).isEqualTo("treecat: OBJECT_NOT_FOUND: Object not found: /nope\n");

        Run badFile = treecat("commit", directory.resolve("absent.json").toString());
        assertThat(badFile.exitCode()).isNotZero();
        assertThat(badFile.err()).isEqualTo("treecat: Cannot read " + directory.resolve("absent.json") + "\n");

        Run unreachable = treecat("query", "/*", "--server", "127.0.0.1:1");
        assertThat(unreachable.exitCode()).isNotZero();
        assertThat(unreachable.err().lines()).hasSize(1);
        assertThat(unreachable.err()).startsWith("treecat: UNAVAILABLE");
    }

    @Test
    void watchReplaysFromAVidAndFollowsNewCommits() throws Exception {
        Path first = directory.resolve("watch1.json");
        Files.writeString(first, "{\"writes\": [{\"op\": \"add\", \"path\": \"/shop\", \"value\": {}}]}");
        assertThat(treecat("commit", first.toString()).exitCode()).isZero();
        // vid 1 is the HMS default database; vid 2 the commit above.
        Run replay = treecat("watch", "--from", "2", "--limit", "1", "-v");
        assertThat(replay.exitCode()).as(replay.err()).isZero();
        assertThat(replay.out().lines().toList())
                .singleElement()
                .asString()
                .startsWith("{\"vid\": 2, \"time\": ")
                .contains("\"changes\": [{\"path\": \"/shop\", \"change\": \"added\"}]");

        // Following from after vid 2 (the newest): the watcher sees the next commit under /shop, not the one elsewhere.
        Path out = directory.resolve("watch-live.txt");
        List<String> command = new ArrayList<>(List.of(
                launcher().toString(),
                "watch",
                "--server",
                server.grpcTarget(),
                "/shop",
                "--from",
                "3",
                "--limit",
                "1",
                "--format",
                "table"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectOutput(out.toFile())
                .redirectError(directory.resolve("watch-live-err.txt").toFile());
        builder.environment().put("TREECAT_NO_BUILD", "1");
        Process watcher = builder.start();
        try {
            Path elsewhere = directory.resolve("watch2.json");
            Files.writeString(elsewhere, "{\"writes\": [{\"op\": \"add\", \"path\": \"/other\", \"value\": {}}]}");
            assertThat(treecat("commit", elsewhere.toString()).exitCode()).isZero();
            Path under = directory.resolve("watch3.json");
            Files.writeString(under, "{\"writes\": [{\"op\": \"add\", \"path\": \"/shop/orders\", \"value\": {}}]}");
            assertThat(treecat("commit", under.toString()).exitCode()).isZero();
            assertThat(watcher.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(watcher.exitValue()).isZero();
            assertThat(Files.readString(out, StandardCharsets.UTF_8).lines().toList())
                    .singleElement()
                    .asString()
                    .startsWith(String.format("%-8d  ", 4))
                    .contains("native.commit")
                    .contains("+1 ~0 -0");
        } finally {
            watcher.destroyForcibly();
        }

        Run bad = treecat("watch", "--kinds", "added,bogus");
        assertThat(bad.exitCode()).isNotZero();
        assertThat(bad.err().lines()).hasSize(1);
        assertThat(bad.err()).contains("--kinds is a comma-separated list");
        Run past = treecat("watch", "--from", "99");
        assertThat(past.exitCode()).isNotZero();
        assertThat(past.err())
                .startsWith("treecat: VID_NOT_FOUND: The feed position is after the newest committed vid");
    }

    @Test
    void logListsCommitsAndReadsGoBackInTime() throws Exception {
        Path first = directory.resolve("first.json");
        Files.writeString(
                first,
                "{\"writes\": [{\"op\": \"add\", \"path\": \"/shop\", \"value\": {\"owner\": \"ann\"}},"
                        + "{\"op\": \"add\", \"path\": \"/shop/orders\", \"value\": {}}]}");
        assertThat(treecat("commit", first.toString()).exitCode()).isZero();
        Run listed = treecat("log", "--limit", "1");
        assertThat(listed.exitCode()).as(listed.err()).isZero();
        String time = TreeCatTestServer.JSON.readTree(listed.out()).get("time").asText();
        java.time.Instant then = java.time.Instant.parse(time);
        while (!java.time.Instant.now().isAfter(then.plusMillis(1))) {
            Thread.onSpinWait();
        }
        Path second = directory.resolve("second.json");
        Files.writeString(
                second,
                "{\"writes\": [{\"op\": \"update\", \"path\": \"/shop\", \"value\": {\"owner\": \"bob\"}},"
                        + "{\"op\": \"remove\", \"path\": \"/shop/orders\"}]}");
        assertThat(treecat("commit", second.toString()).exitCode()).isZero();

        // vid 1 is the HMS listener's default database, logged as the HMS adapter's.
        Run all = treecat("log", "--reverse");
        assertThat(all.out().lines()).hasSize(3);
        assertThat(all.out().lines().findFirst().orElseThrow())
                .contains("\"vid\": 1,")
                .contains("\"operation\": \"hms.");
        Run shop = treecat("log", "/shop/orders", "-v");
        assertThat(shop.exitCode()).as(shop.err()).isZero();
        List<String> lines = shop.out().lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0))
                .startsWith("{\"vid\": 3, \"time\": ")
                .contains("\"operation\": \"native.commit\", \"added\": 0, \"updated\": 1, \"removed\": 1")
                .contains("\"changes\": [{\"path\": \"/shop\", \"change\": \"updated\"}, "
                        + "{\"path\": \"/shop/orders\", \"change\": \"removed\"}]");
        assertThat(lines.get(1)).startsWith("{\"vid\": 2, \"time\": \"" + time + "\"");
        String time3 = TreeCatTestServer.JSON.readTree(lines.get(0)).get("time").asText();
        Run table = treecat("log", "--since", "2", "--format", "table", "-v");
        assertThat(table.out().lines())
                .containsExactly(
                        String.format("%-8d  %-24s  %-28s  +%d ~%d -%d", 3, time3, "native.commit", 0, 1, 1),
                        "    M /shop",
                        "    D /shop/orders",
                        String.format("%-8d  %-24s  %-28s  +%d ~%d -%d", 2, time, "native.commit", 2, 0, 0),
                        "    A /shop",
                        "    A /shop/orders");

        Run old = treecat("get", "/shop/orders", "--as-of", time);
        assertThat(old.exitCode()).as(old.err()).isZero();
        assertThat(old.out()).contains("\"path\": \"/shop/orders\"");
        Run now = treecat("get", "/shop/orders");
        assertThat(now.exitCode()).isNotZero();
        Run query = treecat("query", "/[obj_id='shop']", "--as-of", time);
        assertThat(query.out()).contains("\"owner\": \"ann\"");

        Run before = treecat("get", "/shop", "--as-of", "2000-01-01T00:00:00Z");
        assertThat(before.exitCode()).isNotZero();
        assertThat(before.err())
                .startsWith(
                        "treecat: TIME_BEFORE_HISTORY: Time 2000-01-01T00:00:00Z is before the oldest recorded commit");
        Run malformed = treecat("get", "/shop", "--as-of", "yesterday");
        assertThat(malformed.exitCode()).isNotZero();
        assertThat(malformed.err()).startsWith("treecat: INVALID_REQUEST: --as-of is not an RFC 3339 time");
    }
}
