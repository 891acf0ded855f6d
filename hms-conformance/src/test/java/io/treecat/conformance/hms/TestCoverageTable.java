package io.treecat.conformance.hms;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.hms.TreeCatHmsServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the coverage table of docs/hms-thrift.md ("Coverage: every call") true, without a peer: one row per call of
 * Hive 4.1's {@code ThriftHiveMetastore.Iface} (fb303's included) and per legacy call TreeCat answers, in name order;
 * "supported" is {@code yes} exactly for {@link TreeCatHmsServer#servedCalls()}; "differential-tested" is {@code yes}
 * exactly for the calls a differential IT declares in its {@link ComparesCalls} (which {@link SharedHmsPeers} holds
 * true when the ITs run); an unsupported call names its reason. On a difference the test prints the table as it
 * should read, reasons kept, to paste over the old one.
 */
class TestCoverageTable {
    static final Path DOC = Path.of("..", "docs", "hms-thrift.md");
    static final String HEADING = "## Coverage: every call";
    private static final Pattern ROW = Pattern.compile(
            "^\\|\\s*`([A-Za-z_0-9]+)`\\s*\\|\\s*(yes|no)\\s*\\|\\s*(yes|no)\\s*\\|\\s*(.*?)\\s*\\|\\s*$");

    /** One row of the table. */
    record Row(String call, boolean supported, boolean tested, String reason) {
        String text() {
            return "| `" + call + "` | " + (supported ? "yes" : "no") + " | " + (tested ? "yes" : "no") + " | " + reason
                    + " |";
        }
    }

    static List<Row> rows(String markdown) {
        int start = markdown.indexOf("\n" + HEADING + "\n");
        if (start < 0) {
            throw new IllegalStateException(DOC + " has no section '" + HEADING + "'");
        }
        int end = markdown.indexOf("\n## ", start + HEADING.length() + 1);
        String section = markdown.substring(start, end < 0 ? markdown.length() : end);
        List<Row> rows = new ArrayList<>();
        for (String line : section.split("\n")) {
            Matcher matcher = ROW.matcher(line);
            if (matcher.matches()) {
                rows.add(new Row(
                        matcher.group(1),
                        matcher.group(2).equals("yes"),
                        matcher.group(3).equals("yes"),
                        matcher.group(4)));
            } else if (line.startsWith("| `")) {
                throw new IllegalStateException("Not a row of the coverage table: " + line);
            }
        }
        return rows;
    }

    /** The calls the differential ITs declare they compare: every {@code *IT} class of this package. */
    static SortedSet<String> declaredCalls() throws IOException {
        Path classes = Path.of("target", "test-classes", "io", "treecat", "conformance", "hms");
        SortedSet<String> calls = new TreeSet<>();
        try (Stream<Path> files = Files.list(classes)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith("IT.class") && !name.contains("$")) {
                    String className = TestCoverageTable.class.getPackageName() + "."
                            + name.substring(0, name.length() - ".class".length());
                    try {
                        calls.addAll(SharedHmsPeers.declared(Class.forName(className)));
                    } catch (ClassNotFoundException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return calls;
    }

    @Test
    void tableListsEveryCallAsServedAndCompared() throws IOException {
        List<Row> rows = rows(Files.readString(DOC, StandardCharsets.UTF_8));
        Set<String> served = TreeCatHmsServer.servedCalls();
        SortedSet<String> declared = declaredCalls();
        SortedSet<String> calls = new TreeSet<>(ThriftCalls.iface());
        calls.addAll(ThriftCalls.LEGACY);

        Map<String, Row> byCall = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Row row : rows) {
            if (byCall.put(row.call(), row) != null) {
                problems.add(row.call() + ": listed twice");
            }
        }
        List<String> names = rows.stream().map(Row::call).toList();
        if (!names.equals(List.copyOf(new TreeSet<>(names)))) {
            problems.add("rows are not in name order");
        }
        List<String> expectedRows = new ArrayList<>();
        for (String call : calls) {
            Row row = byCall.get(call);
            boolean supported = served.contains(call);
            boolean tested = declared.contains(call);
            String reason = row == null ? "" : row.reason();
            if (row == null) {
                problems.add(call + ": missing");
            } else {
                if (row.supported() != supported) {
                    problems.add(call + ": supported is " + supported + " (TreeCatHmsServer.servedCalls())");
                }
                if (row.tested() != tested) {
                    problems.add(
                            call + ": differential-tested is " + tested + " (the @ComparesCalls of the *IT classes)");
                }
            }
            if (!supported && reason.isBlank()) {
                problems.add(call + ": unsupported, with no reason");
            }
            if (tested && !supported) {
                problems.add(call + ": compared by an IT but not served");
            }
            expectedRows.add(new Row(call, supported, tested, reason).text());
        }
        for (String call : byCall.keySet()) {
            if (!calls.contains(call)) {
                problems.add(call + ": no call of Hive 4.1's interface (nor a legacy one TreeCat answers)");
            }
        }
        assertThat(problems)
                .withFailMessage(
                        "The coverage table of %s is not true:%n  %s%nAs it should read (reasons kept; fill in the missing ones):%n%s",
                        DOC, String.join("\n  ", problems), String.join("\n", expectedRows))
                .isEmpty();
    }

    @Test
    void parsesRows() {
        String markdown =
                "intro\n" + HEADING + "\n\n| call | supported | differential-tested | reason |\n|---|---|---|---|\n"
                        + "| `get_database` | yes | yes |  |\n| `open_txns` | no | no | Hive ACID |\n\n## Next\n| `x` | no |\n";
        assertThat(rows(markdown))
                .containsExactly(
                        new Row("get_database", true, true, ""), new Row("open_txns", false, false, "Hive ACID"));
    }
}
