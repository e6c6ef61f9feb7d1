package dev.ibex.bench.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table every end-to-end harness prints: per metric the baseline's figure, Ibex's, their ratio, the target
 * and PASS, or MISS with the miss in percent of the bound.
 */
public final class RatioTable {
    private final String title;
    private final String baselineName;
    private final List<Comparison> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

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

    private static String figure(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return v >= 1000 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
