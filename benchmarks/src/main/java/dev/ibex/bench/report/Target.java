package dev.ibex.bench.report;

import java.util.Locale;

/**
 * A performance target on the ratio Ibex / baseline: at most {@code bound} for costs (latency, setup time), at
 * least {@code bound} for rates (bandwidth, messages per second).
 *
 * @param atMost whether the ratio must stay at or below the bound (else at or above it)
 * @param bound the bound on the ratio
 */
public record Target(boolean atMost, double bound) {

    /** The ratio must be at most {@code bound} (lower is better). */
    public static Target atMost(double bound) {
        return new Target(true, bound);
    }

    /** The ratio must be at least {@code bound} (higher is better). */
    public static Target atLeast(double bound) {
        return new Target(false, bound);
    }

    /** No target: the row is informative only. */
    public static Target none() {
        return new Target(true, Double.NaN);
    }

    public boolean isSet() {
        return !Double.isNaN(bound);
    }

    public boolean met(double ratio) {
        return !isSet() || (atMost ? ratio <= bound : ratio >= bound);
    }

    /** By how much a ratio misses the target, as a percentage of the bound (0 when met). */
    public double missPercent(double ratio) {
        if (met(ratio)) {
            return 0;
        }
        return 100 * Math.abs(ratio - bound) / bound;
    }

    @Override
    public String toString() {
        return isSet() ? String.format(Locale.ROOT, "%s %.2f", atMost ? "<=" : ">=", bound) : "-";
    }
}
