package io.treecat.benchmarks.suite;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The rows an experiment measured, under named columns: written raw as CSV (full precision) and
 * shown rounded as a markdown table in the report. Cells are numbers or text.
 */
public final class ResultTable {
    private final String name;
    private final String caption;
    private final List<String> columns;
    private final List<List<Object>> rows = Collections.synchronizedList(new ArrayList<>());

    ResultTable(String name, String caption, List<String> columns) {
        this.name = requireNonNull(name, "name is null");
        this.caption = requireNonNull(caption, "caption is null");
        this.columns = ImmutableList.copyOf(columns);
        if (!name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("A table's name is its file name: lower case, digits and '-' only");
        }
    }

    public String name() {
        return name;
    }

    public String caption() {
        return caption;
    }

    public List<String> columns() {
        return columns;
    }

    public ResultTable add(Object... values) {
        if (values.length != columns.size()) {
            throw new IllegalArgumentException(
                    "Table " + name + " has " + columns.size() + " columns, a row gave " + values.length);
        }
        for (Object value : values) {
            if (!(value instanceof Number || value instanceof String)) {
                throw new IllegalArgumentException("A cell is a number or text, not " + value);
            }
        }
        rows.add(List.of(values));
        return this;
    }

    public List<List<Object>> rows() {
        synchronized (rows) {
            return List.copyOf(rows);
        }
    }

    public int column(String column) {
        int index = columns.indexOf(column);
        if (index < 0) {
            throw new IllegalArgumentException("Table " + name + " has no column " + column + ": " + columns);
        }
        return index;
    }

    void writeCsv(Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write(columns.stream().map(ResultTable::csvCell).collect(Collectors.joining(",")));
            out.write('\n');
            for (List<Object> row : rows()) {
                out.write(row.stream().map(ResultTable::csvCell).collect(Collectors.joining(",")));
                out.write('\n');
            }
        }
    }

    String toMarkdown() {
        StringBuilder out = new StringBuilder();
        out.append("| ").append(String.join(" | ", columns)).append(" |\n");
        out.append("|").append("---|".repeat(columns.size())).append('\n');
        for (List<Object> row : rows()) {
            out.append("| ")
                    .append(row.stream().map(ResultTable::shown).collect(Collectors.joining(" | ")))
                    .append(" |\n");
        }
        return out.toString();
    }

    private static String csvCell(Object value) {
        String text = value instanceof Double d ? Double.toString(d) : String.valueOf(value);
        if (text.contains(",") || text.contains("\"") || text.contains("\n")) {
            return '"' + text.replace("\"", "\"\"") + '"';
        }
        return text;
    }

    /** Rounded for reading: three significant digits below 100, whole numbers with separators above. */
    static String shown(Object value) {
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number)) {
                return "–";
            }
            double magnitude = Math.abs(number);
            if (magnitude >= 100 || number == 0) {
                return String.format(Locale.ROOT, "%,.0f", number);
            }
            if (magnitude >= 10) {
                return String.format(Locale.ROOT, "%.1f", number);
            }
            if (magnitude >= 1) {
                return String.format(Locale.ROOT, "%.2f", number);
            }
            return String.format(Locale.ROOT, "%.3f", number);
        }
        if (value instanceof Number number) {
            return String.format(Locale.ROOT, "%,d", number.longValue());
        }
        return String.valueOf(value).replace("|", "\\|");
    }
}
