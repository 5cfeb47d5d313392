package org.lutra.paper;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The paper's figures from a run folder's results, drawn with XChart as PNG: messages per
 * transaction vs backends (Fig. 5), throughput vs the share of distributed queries (Fig. 6) and
 * vs participants (Fig. 7), throughput vs backends per scheme (Fig. 8), and schemes side by side
 * (Fig. 9). A figure whose runs are missing is not drawn.
 */
final class Charts {
    private static final int WIDTH = 800;
    private static final int HEIGHT = 500;

    private Charts() {}

    static List<Path> draw(List<RunResult> all, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        var runs = all.stream().filter(r -> !Double.isNaN(r.throughput())).toList();
        var out = new ArrayList<Path>();
        save(out, dir, "fig5-wikipedia-messages", byBackends(runs, "wikipedia", "Fig. 5: Wikipedia, messages per transaction",
                "messages per transaction (statements the backends received)", RunResult::messagesPerTxn));
        save(out, dir, "fig6-micro-distributed", micro(runs, r -> variantParticipants(r) == 2, "Fig. 6: microbenchmark, throughput vs distributed queries",
                "distributed queries (%)", r -> 100 * variantShare(r)));
        save(out, dir, "fig7-micro-participants", micro(runs, r -> variantShare(r) == 1.0, "Fig. 7: microbenchmark, 100 % distributed, throughput vs participants",
                "partitions a query reads", Charts::variantParticipants));
        save(out, dir, "fig8-wikipedia-throughput", byBackends(runs, "wikipedia", "Fig. 8: Wikipedia, throughput vs backends",
                "transactions per second", RunResult::throughput));
        for (String w : List.of("wikipedia", "twitter", "tpce")) save(out, dir, "fig9-" + w + "-schemes", schemes(runs, w));
        return out;
    }

    private static void save(List<Path> out, Path dir, String name, Object chart) throws IOException {
        if (chart == null) return;
        Path file = dir.resolve(name + ".png");
        if (chart instanceof XYChart xy) BitmapEncoder.saveBitmap(xy, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        else BitmapEncoder.saveBitmap((CategoryChart) chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        out.add(file);
    }

    /** y per backend count, a series per scheme; the one-machine baseline as a flat line. */
    private static XYChart byBackends(List<RunResult> runs, String workload, String title, String yTitle, ToDoubleFunction<RunResult> y) {
        var series = new TreeMap<String, TreeMap<Integer, Double>>();
        RunResult baseline = null;
        for (RunResult r : runs) {
            if (!r.workload().equals(workload)) continue;
            if (r.scheme().equals(BaselineTarget.ONE_MACHINE)) baseline = r;
            else series.computeIfAbsent(r.scheme(), k -> new TreeMap<>()).put(r.backends(), y.applyAsDouble(r));
        }
        if (series.isEmpty()) return null;
        var chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("backends").yAxisTitle(yTitle).build();
        style(chart);
        int maxBackends = 1;
        for (var e : series.entrySet()) {
            chart.addSeries(e.getKey(), new ArrayList<>(e.getValue().keySet()), new ArrayList<>(e.getValue().values()));
            maxBackends = Math.max(maxBackends, e.getValue().lastKey());
        }
        if (baseline != null) chart.addSeries("one machine", List.of(1, maxBackends), List.of(y.applyAsDouble(baseline), y.applyAsDouble(baseline)));
        return chart;
    }

    private static XYChart micro(List<RunResult> runs, Predicate<RunResult> which, String title, String xTitle, ToDoubleFunction<RunResult> x) {
        var series = new TreeMap<Integer, TreeMap<Double, Double>>();
        for (RunResult r : runs) {
            if (!r.workload().equals("micro") || r.backends() < 2 || r.variant().isEmpty() || !which.test(r)) continue;
            series.computeIfAbsent(r.backends(), k -> new TreeMap<>()).put(x.applyAsDouble(r), r.throughput());
        }
        if (series.isEmpty()) return null;
        var chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle("queries per second").build();
        style(chart);
        for (var e : series.entrySet()) {
            chart.addSeries(e.getKey() + " backends", new ArrayList<>(e.getValue().keySet()), new ArrayList<>(e.getValue().values()));
        }
        return chart;
    }

    /** Throughput of each scheme at the largest backend count, and of one machine. */
    private static CategoryChart schemes(List<RunResult> runs, String workload) {
        var of = runs.stream().filter(r -> r.workload().equals(workload)).toList();
        int n = of.stream().filter(r -> !r.scheme().equals(BaselineTarget.ONE_MACHINE)).mapToInt(RunResult::backends).max().orElse(0);
        if (n == 0) return null;
        var bars = new LinkedHashMap<String, Double>();
        of.stream().filter(r -> r.scheme().equals(BaselineTarget.ONE_MACHINE)).findFirst().ifPresent(r -> bars.put("one machine", r.throughput()));
        of.stream().filter(r -> r.backends() == n && !r.scheme().equals(BaselineTarget.ONE_MACHINE))
                .sorted(Comparator.comparing(RunResult::throughput)).forEach(r -> bars.put(r.scheme(), r.throughput()));
        var chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title("Fig. 9: " + workload + ", schemes on " + n + " backends")
                .xAxisTitle("placement").yAxisTitle("transactions per second").build();
        style(chart);
        chart.getStyler().setLegendVisible(false);
        chart.addSeries("throughput", new ArrayList<>(bars.keySet()), new ArrayList<>(bars.values()));
        return chart;
    }

    private static void style(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart) {
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        if (chart.getStyler() instanceof org.knowm.xchart.style.AxesChartStyler axes) axes.setYAxisMin(0.0);
    }

    static double variantShare(RunResult r) {
        Map<String, String> v = variant(r.variant());
        return Double.parseDouble(v.getOrDefault("share", "NaN"));
    }

    static int variantParticipants(RunResult r) {
        return Integer.parseInt(variant(r.variant()).getOrDefault("participants", "0"));
    }

    /** "share=0.50 participants=2" → {share=0.50, participants=2}. */
    static Map<String, String> variant(String text) {
        var out = new LinkedHashMap<String, String>();
        for (String part : text.trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq > 0) out.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return out;
    }
}
