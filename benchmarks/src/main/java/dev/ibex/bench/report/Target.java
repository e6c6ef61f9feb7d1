package dev.ibex.bench.report;

import java.util.Locale;

/**
 * A performance target: on the ratio Ibex / baseline — at most {@code bound} for costs (latency, setup time), at
 * least {@code bound} for rates (bandwidth, messages per second) — or, for a figure that has no baseline (bytes
 * allocated per operation), on Ibex's figure itself.
 *
 * @param atMost whether the value must stay at or below the bound (else at or above it)
 * @param bound the bound
 * @param absolute whether the bound applies to Ibex's figure rather than to the ratio
 */
public record Target(boolean atMost, double bound, boolean absolute) {

    /** The ratio must be at most {@code bound} (lower is better). */
    public static Target atMost(double bound) {
        return new Target(true, bound, false);
    }

    /** The ratio must be at least {@code bound} (higher is better). */
    public static Target atLeast(double bound) {
        return new Target(false, bound, false);
    }

    /** Ibex's figure itself must be at most {@code bound} (no baseline: allocation per operation). */
    public static Target figureAtMost(double bound) {
        return new Target(true, bound, true);
    }

    /** Ibex's figure itself must be at least {@code bound} (no baseline: connections established, per cent). */
    public static Target figureAtLeast(double bound) {
        return new Target(false, bound, true);
    }

    /** No target: the row is informative only. */
    public static Target none() {
        return new Target(true, Double.NaN, false);
    }

    public boolean isSet() {
        return !Double.isNaN(bound);
    }

    /** Whether {@code value} (the ratio, or Ibex's figure for an absolute target) meets the bound. */
    public boolean met(double value) {
        return !isSet() || (atMost ? value <= bound : value >= bound);
    }

    /** By how much a value misses the target, as a percentage of the bound (0 when met). */
    public double missPercent(double value) {
        if (met(value)) {
            return 0;
        }
        return bound == 0 ? Double.POSITIVE_INFINITY : 100 * Math.abs(value - bound) / bound;
    }

    @Override
    public String toString() {
        if (!isSet()) {
            return "-";
        }
        return String.format(Locale.ROOT, "%s%s %.2f", absolute ? "value " : "", atMost ? "<=" : ">=", bound);
    }
}
