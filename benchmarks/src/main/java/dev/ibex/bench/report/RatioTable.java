package dev.ibex.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table every end-to-end harness prints: per metric the baseline's figure, Ibex's, their ratio, the target
 * and PASS, or MISS with the miss in percent of the bound; the same as JSON ({@link #writeJson}), with the scaling
 * curves a harness measured ({@link #curve}), which {@link #writePlots} draws.
 */
public final class RatioTable {
    private final String title;
    private final String baselineName;
    private final List<Comparison> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<Curve> curves = new ArrayList<>();

    /**
     * @param title what was compared, printed above the table
     * @param baselineName the baseline column's heading ("raw UDP", "perftest")
     */
    public RatioTable(String title, String baselineName) {
        this.title = title;
        this.baselineName = baselineName;
    }

    public RatioTable add(Comparison c) {
        rows.add(c);
        return this;
    }

    /** A line printed under the table (how the figures were taken). */
    public RatioTable note(String line) {
        notes.add(line);
        return this;
    }

    /** The notes under the table, in order. */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    /** A scaling curve measured for this table (drawn by {@link #writePlots}, carried in the JSON). */
    public RatioTable curve(Curve c) {
        curves.add(c);
        return this;
    }

    public List<Curve> curves() {
        return List.copyOf(curves);
    }

    public List<Comparison> rows() {
        return List.copyOf(rows);
    }

    /** Whether every row with a target meets it. */
    public boolean allMet() {
        return rows.stream().allMatch(Comparison::met);
    }

    public void print(PrintStream out) {
        int w = Math.max(34, rows.stream().mapToInt(r -> r.metric().length()).max().orElse(0) + 2);
        String head = "%-" + w + "s %12s %12s %7s %9s  %-11s %s%n";
        out.println();
        out.println("== " + title);
        out.printf(Locale.ROOT, head, "metric", baselineName, "Ibex", "ratio", "target", "verdict", "rounds");
        for (Comparison r : rows) {
            out.printf(Locale.ROOT, "%-" + w + "s %12s %12s %7s %9s  %-11s %s%n", r.metric(), figure(r.baseline()),
                    figure(r.ibex()), figure(r.ratio()), r.target(), r.verdict(), r.spread());
        }
        for (String n : notes) {
            out.println("   " + n);
        }
        out.flush();
    }

    /** The table as JSON-ready maps and lists: title, baseline, rows (with verdicts), notes, curves, allMet. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("baseline", baselineName);
        List<Object> rs = new ArrayList<>();
        for (Comparison r : rows) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("metric", r.metric());
            row.put("baseline", r.baseline());
            row.put("ibex", r.ibex());
            row.put("ratio", r.ratio());
            row.put("target", r.target().isSet() ? r.target().toString() : null);
            row.put("verdict", r.verdict());
            row.put("met", r.met());
            row.put("spread", r.spread());
            rs.add(row);
        }
        m.put("rows", rs);
        m.put("notes", List.copyOf(notes));
        m.put("curves", curves.stream().map(Curve::toJson).toList());
        m.put("allMet", allMet());
        return m;
    }

    /** Writes {@link #toJson()} to {@code file} (its directory created). */
    public void writeJson(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Files.writeString(file, Json.write(toJson()));
    }

    /** Draws every curve into {@code dir} ({@link Plot}); returns the files written. */
    public List<Path> writePlots(Path dir) throws IOException {
        List<Path> written = new ArrayList<>();
        for (Curve c : curves) {
            written.add(Plot.write(c, dir));
        }
        return written;
    }

    private static String figure(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return v >= 1000 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
