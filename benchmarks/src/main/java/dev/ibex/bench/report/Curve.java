package dev.ibex.bench.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scaling curve a harness measured (a figure against a size or a setting), one series per side: what
 * {@link Plot} draws and the JSON result carries.
 *
 * @param file the plot's file name without extension ("large-messages")
 * @param title the chart's title
 * @param xLabel the x axis, with its unit
 * @param yLabel the y axis, with its unit
 * @param logX whether x is drawn on a logarithmic scale (sizes, timeouts)
 * @param logY whether y is drawn on a logarithmic scale
 * @param series per series name, its points in x order
 */
public record Curve(String file, String title, String xLabel, String yLabel, boolean logX, boolean logY,
        Map<String, List<Point>> series) {

    /** One measured point; {@code y} is NaN when that side was not measured. */
    public record Point(double x, double y) {}

    public Curve {
        series = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(series));
    }

    /**
     * Two named series in this order (the baseline's first), as most curves have.
     *
     * @param a the first series' name
     * @param pa its points
     * @param b the second series' name
     * @param pb its points
     * @return the series, in order
     */
    public static Map<String, List<Point>> twoSeries(String a, List<Point> pa, String b, List<Point> pb) {
        Map<String, List<Point>> m = new LinkedHashMap<>();
        m.put(a, pa);
        m.put(b, pb);
        return m;
    }

    /**
     * A message size as the size curves name it in their rows: "64 B", "16 KiB", "1 MiB".
     *
     * @param size bytes
     * @return the label
     */
    public static String sizeLabel(int size) {
        return size >= 1 << 20 ? (size >> 20) + " MiB" : size >= 1 << 10 ? (size >> 10) + " KiB" : size + " B";
    }

    /** The curve as JSON-ready maps and lists ({@link Json}). */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", file);
        m.put("title", title);
        m.put("x", xLabel);
        m.put("y", yLabel);
        Map<String, Object> s = new LinkedHashMap<>();
        series.forEach((name, points) -> s.put(name, points.stream()
                .map(p -> List.of(p.x(), p.y())).toList()));
        m.put("series", s);
        return m;
    }
}
