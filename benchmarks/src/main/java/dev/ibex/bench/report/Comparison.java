package dev.ibex.bench.report;

/**
 * One row of a ratio table: a figure measured for a baseline and for Ibex in the same run, and the target on
 * their ratio (always Ibex / baseline).
 *
 * @param metric what was measured, with its unit ("ping-pong p50 (us)")
 * @param baseline the baseline's figure
 * @param ibex Ibex's figure
 * @param target the target on {@code ibex / baseline} (or on {@code ibex} alone, when absolute)
 * @param spread the ratio's range over the interleaved rounds, e.g. "1.12-1.31" (empty when not known)
 */
public record Comparison(String metric, double baseline, double ibex, Target target, String spread) {

    public double ratio() {
        return ibex / baseline;
    }

    /** What the target bounds: the ratio, or Ibex's figure for an absolute target. */
    public double judged() {
        return target.absolute() ? ibex : ratio();
    }

    public boolean met() {
        return target.met(judged());
    }

    /** "PASS", "MISS by N%" (of the bound), "NO DATA" when a side was not measured, or "info" without target. */
    public String verdict() {
        if (!target.isSet()) {
            return "info";
        }
        if (Double.isNaN(judged())) {
            return "NO DATA";
        }
        if (met()) {
            return "PASS";
        }
        double miss = target.missPercent(judged());
        return Double.isInfinite(miss) ? "MISS" : String.format(java.util.Locale.ROOT, "MISS by %.0f%%", miss);
    }
}
