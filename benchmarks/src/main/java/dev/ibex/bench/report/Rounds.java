package dev.ibex.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One metric measured in interleaved rounds (baseline, Ibex, baseline, Ibex …), so that drift of a shared
 * machine's load hits both sides alike. The row's figures are the medians over the rounds; the spread shows the
 * lowest and highest per-round ratio.
 */
public final class Rounds {
    private final String metric;
    private final Target target;
    private final List<Double> baseline = new ArrayList<>();
    private final List<Double> ibex = new ArrayList<>();

    public Rounds(String metric, Target target) {
        this.metric = metric;
        this.target = target;
    }

    /** Records one round's pair of figures. */
    public void add(double baselineFigure, double ibexFigure) {
        baseline.add(baselineFigure);
        ibex.add(ibexFigure);
    }

    public int size() {
        return baseline.size();
    }

    /** The row: medians of both sides and the range of the per-round ratios. */
    public Comparison comparison() {
        if (baseline.isEmpty()) {
            return new Comparison(metric, Double.NaN, Double.NaN, target, "no rounds");
        }
        double[] ratios = new double[baseline.size()];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = ibex.get(i) / baseline.get(i);
        }
        Arrays.sort(ratios);
        String spread = ratios.length == 1 ? "1 round"
                : String.format(Locale.ROOT, "%d rounds, ratio %.2f-%.2f", ratios.length, ratios[0],
                        ratios[ratios.length - 1]);
        return new Comparison(metric, median(baseline), median(ibex), target, spread);
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
