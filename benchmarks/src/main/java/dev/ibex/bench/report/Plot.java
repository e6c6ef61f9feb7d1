package dev.ibex.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * Draws a {@link Curve} as a PNG with XChart (headless AWT), one line with markers per series; points without a
 * figure are left out.
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class Plot {
    private Plot() {}

    /** Writes {@code dir/<curve.file()>.png} and returns its path. */
    public static Path write(Curve curve, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(520).title(curve.title()).xAxisTitle(curve.xLabel())
                .yAxisTitle(curve.yLabel()).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS); // the plot keeps the full width
        chart.getStyler().setXAxisLogarithmic(curve.logX());
        chart.getStyler().setYAxisLogarithmic(curve.logY());
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        curve.series().forEach((name, points) -> {
            List<Curve.Point> measured = points.stream().filter(p -> Double.isFinite(p.y())).toList();
            if (!measured.isEmpty()) {
                chart.addSeries(name, measured.stream().mapToDouble(Curve.Point::x).toArray(),
                        measured.stream().mapToDouble(Curve.Point::y).toArray());
            }
        });
        Files.createDirectories(dir);
        Path png = dir.resolve(curve.file() + ".png");
        BitmapEncoder.saveBitmap(chart, dir.resolve(curve.file()).toString(), BitmapEncoder.BitmapFormat.PNG);
        return png;
    }
}
