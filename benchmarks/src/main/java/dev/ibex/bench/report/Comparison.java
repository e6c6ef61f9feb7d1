package dev.ibex.bench.report;

/**
 * One row of a ratio table: a figure measured for a baseline and for Ibex in the same run, and the target on
 * their ratio (always Ibex / baseline).
 *
 * @param metric what was measured, with its unit ("ping-pong p50 (us)")
 * @param baseline the baseline's figure
 * @param ibex Ibex's figure
 * @param target the target on {@code ibex / baseline}
 * @param spread the ratio's range over the interleaved rounds, e.g. "1.12-1.31" (empty when not known)
 */
public record Comparison(String metric, double baseline, double ibex, Target target, String spread) {

    public double ratio() {
        return ibex / baseline;
    }

    public boolean met() {
        return target.met(ratio());
    }
}
