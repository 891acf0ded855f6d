package io.treecat.benchmarks.suite;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A chart of one result table: one series per distinct value of the series columns, {@code y}
 * against {@code x}. Drawn as a PNG once the experiment has finished, so it shows every row.
 *
 * @param name the PNG's file name, without extension
 * @param kind lines over a numeric {@code x}, or grouped bars over {@code x} as categories
 */
public record Chart(
        String name, String title, Kind kind, ResultTable table, String x, String y, List<String> seriesColumns) {
    public enum Kind {
        LINES,
        BARS
    }

    private static final int WIDTH = 820;
    private static final int HEIGHT = 460;

    public Chart {
        requireNonNull(name, "name is null");
        requireNonNull(title, "title is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(table, "table is null");
        seriesColumns = ImmutableList.copyOf(seriesColumns);
        table.column(x);
        table.column(y);
        seriesColumns.forEach(table::column);
    }

    /** Writes {@code <directory>/<name>.png} and returns its path. */
    Path draw(Path directory) throws IOException {
        Path file = directory.resolve(name + ".png");
        Map<String, List<List<Object>>> series = new LinkedHashMap<>();
        for (List<Object> row : table.rows()) {
            series.computeIfAbsent(seriesName(row), ignored -> new ArrayList<>())
                    .add(row);
        }
        int xIndex = table.column(x);
        int yIndex = table.column(y);
        if (kind == Kind.LINES) {
            XYChart chart = new XYChartBuilder()
                    .width(WIDTH)
                    .height(HEIGHT)
                    .title(title)
                    .xAxisTitle(x)
                    .yAxisTitle(y)
                    .build();
            style(chart.getStyler());
            series.forEach((label, rows) -> {
                List<Number> xs =
                        rows.stream().map(row -> (Number) row.get(xIndex)).toList();
                List<Number> ys =
                        rows.stream().map(row -> (Number) row.get(yIndex)).toList();
                chart.addSeries(label, xs, ys).setMarker(SeriesMarkers.CIRCLE);
            });
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        } else {
            CategoryChart chart = new CategoryChartBuilder()
                    .width(WIDTH)
                    .height(HEIGHT)
                    .title(title)
                    .xAxisTitle(x)
                    .yAxisTitle(y)
                    .build();
            style(chart.getStyler());
            // Every series needs every category: a missing cell is drawn as no bar.
            Set<String> categories = new LinkedHashSet<>();
            table.rows().forEach(row -> categories.add(String.valueOf(row.get(xIndex))));
            series.forEach((label, rows) -> {
                Map<String, Number> values = new LinkedHashMap<>();
                rows.forEach(row -> values.put(String.valueOf(row.get(xIndex)), (Number) row.get(yIndex)));
                List<String> xs = List.copyOf(categories);
                List<Number> ys = xs.stream()
                        .map(category -> values.getOrDefault(category, 0))
                        .toList();
                chart.addSeries(label, xs, ys);
            });
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        }
        return file;
    }

    private String seriesName(List<Object> row) {
        if (seriesColumns.isEmpty()) {
            return y;
        }
        return seriesColumns.stream()
                .map(column -> String.valueOf(row.get(table.column(column))))
                .collect(Collectors.joining(" "));
    }

    private static void style(Styler styler) {
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        styler.setPlotBackgroundColor(java.awt.Color.WHITE);
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setAntiAlias(true);
    }
}
