package dev.ibex.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scaling curve measured in interleaved rounds: per x value (a message size, a connection count) the baseline's
 * and Ibex's figure of every round ({@link Rounds}); gives a table row per point (medians, the ratio of the medians,
 * the per-round ratio range) and the points of both series and of the ratio for a {@link Curve}. Points keep the order
 * of their first round.
 *
 * <p><b>Threading.</b> Not thread-safe: one harness thread fills and reads it.
 */
public final class MeasuredCurve {
    private final Map<Double, Rounds> points = new LinkedHashMap<>();

    /** An empty curve. */
    public MeasuredCurve() {}

    /**
     * Records one round at {@code x}: the baseline's and Ibex's figure.
     *
     * @param metric the table row's name for this point (used by the point's first round)
     */
    public MeasuredCurve add(double x, String metric, double baseline, double ibex) {
        points.computeIfAbsent(x, k -> new Rounds(metric, Target.none())).add(baseline, ibex);
        return this;
    }

    /** Whether no round was recorded. */
    public boolean isEmpty() {
        return points.isEmpty();
    }

    /** A row per point: the medians of both sides over its rounds and the range of the per-round ratios. */
    public List<Comparison> rows() {
        return points.values().stream().map(Rounds::comparison).toList();
    }

    /** The baseline's medians, a point per x. */
    public List<Curve.Point> baseline() {
        return series(Comparison::baseline);
    }

    /** Ibex's medians, a point per x. */
    public List<Curve.Point> ibex() {
        return series(Comparison::ibex);
    }

    /** Ibex's median over the baseline's, a point per x. */
    public List<Curve.Point> ratios() {
        return series(Comparison::ratio);
    }

    private List<Curve.Point> series(java.util.function.ToDoubleFunction<Comparison> figure) {
        List<Curve.Point> out = new ArrayList<>();
        points.forEach((x, rounds) -> out.add(new Curve.Point(x, figure.applyAsDouble(rounds.comparison()))));
        return out;
    }
}
