package dev.ibex.bench.rsocket;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * Draws {@link RSocketBench}'s medians as one PNG (XChart, headless): a chart of round-trip p50/p99 per workload
 * and one of the request rates, RSocket over TCP next to RSocket over Ibex.
 *
 * <p><b>Threading.</b> Stateless.
 */
final class RSocketPlot {
    private RSocketPlot() {}

    private static String name(String side) {
        return side.equals("tcp") ? "RSocket/TCP" : "RSocket/Ibex (soft-roce)";
    }

    /** Writes the PNG and returns a sentence naming it. */
    static String write(Map<String, Double> medians, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> workloads = RSocketBench.workloads();
        List<Chart<?, ?>> charts = new ArrayList<>();
        // one latency chart per workload: p50 and p99 differ 100-fold across workloads, each gets its own scale
        for (String w : workloads) {
            CategoryChart c = new CategoryChartBuilder().width(600).height(320).title("round trip, " + w)
                    .yAxisTitle("microseconds").build();
            for (String side : List.of("tcp", "ibex")) {
                c.addSeries(name(side), List.of("p50", "p99"), List.of(
                        medians.getOrDefault(side + "|" + w + "|p50", 0.0),
                        medians.getOrDefault(side + "|" + w + "|p99", 0.0)));
            }
            charts.add(c);
        }
        CategoryChart rate = new CategoryChartBuilder().width(600).height(320).title("request rate")
                .yAxisTitle("requests / s").build();
        for (String side : List.of("tcp", "ibex")) {
            rate.addSeries(name(side), workloads, workloads.stream()
                    .map(w -> medians.getOrDefault(side + "|" + w + "|rate", 0.0)).toList());
        }
        rate.getStyler().setXAxisLabelRotation(20);
        charts.add(rate);
        Files.createDirectories(png.toAbsolutePath().getParent());
        String base = png.toString().endsWith(".png") ? png.toString().substring(0, png.toString().length() - 4)
                : png.toString();
        BitmapEncoder.saveBitmap(charts, charts.size(), 1, base, BitmapEncoder.BitmapFormat.PNG);
        return "wrote " + base + ".png";
    }
}
