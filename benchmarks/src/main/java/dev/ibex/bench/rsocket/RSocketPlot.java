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
 * Draws {@link RSocketBench}'s medians as one PNG (XChart, headless): round-trip p50/p99 per workload, and the
 * request rate per workload, RSocket over TCP next to RSocket over Ibex.
 *
 * <p><b>Threading.</b> Stateless.
 */
final class RSocketPlot {
    private RSocketPlot() {}

    /** Writes the PNG and returns a sentence naming it. */
    static String write(Map<String, Double> medians, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> workloads = RSocketBench.workloads();
        CategoryChart latency = new CategoryChartBuilder().width(900).height(420)
                .title("RSocket request-response round trip (median of rounds)").xAxisTitle("workload")
                .yAxisTitle("microseconds").build();
        CategoryChart rate = new CategoryChartBuilder().width(900).height(420)
                .title("RSocket request-response rate (median of rounds)").xAxisTitle("workload")
                .yAxisTitle("requests / s").build();
        for (String side : List.of("tcp", "ibex")) {
            String name = side.equals("tcp") ? "RSocket/TCP" : "RSocket/Ibex (soft-roce)";
            List<String> categories = new ArrayList<>();
            List<Double> values = new ArrayList<>();
            for (String w : workloads) {
                for (String metric : List.of("p50", "p99")) {
                    categories.add(w + " " + metric);
                    values.add(medians.getOrDefault(side + "|" + w + "|" + metric, 0.0));
                }
            }
            latency.addSeries(name + " ", categories, values);
            rate.addSeries(name, workloads, workloads.stream()
                    .map(w -> medians.getOrDefault(side + "|" + w + "|rate", 0.0)).toList());
        }
        latency.getStyler().setXAxisLabelRotation(30);
        latency.getStyler().setYAxisLogarithmic(true); // p50 at 1 in flight and p99 at 64 differ 100-fold
        Files.createDirectories(png.toAbsolutePath().getParent());
        List<Chart<?, ?>> charts = List.of(latency, rate);
        String base = png.toString().endsWith(".png") ? png.toString().substring(0, png.toString().length() - 4)
                : png.toString();
        BitmapEncoder.saveBitmap(charts, 2, 1, base, BitmapEncoder.BitmapFormat.PNG);
        return "wrote " + base + ".png";
    }
}
