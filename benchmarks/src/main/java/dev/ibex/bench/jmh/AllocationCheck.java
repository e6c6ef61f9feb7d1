package dev.ibex.bench.jmh;

import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.Target;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link CallbackPathBenchmark} through JMH with the gc profiler ({@code -prof gc}) and turns its {@code
 * gc.alloc.rate.norm} — bytes allocated by the whole forked JVM per round trip — into table rows with an absolute
 * target: less than {@value #BUDGET} B per round trip, i.e. not one object per message (the smallest object has
 * 16 bytes), leaving room for the profiler's own noise (JMH's threads, a timer firing now and then).
 */
public final class AllocationCheck {
    /** Bytes per round trip allowed: below one object per message. */
    static final double BUDGET = 8;

    private AllocationCheck() {
    }

    /**
     * Runs the benchmark for each of {@code providers} ("fake", "soft-roce"), JMH's own output going to {@code log},
     * and returns an allocation row and a latency row (information) per provider.
     */
    public static List<Comparison> run(List<String> providers, Path log, PrintStream out) {
        Options options = new OptionsBuilder()
                .include(CallbackPathBenchmark.class.getName().replace(".", "\\.") + "\\.roundTrip$")
                .param("provider", providers.toArray(String[]::new))
                .addProfiler(GCProfiler.class)
                .output(log.toString())
                .build();
        Collection<RunResult> results;
        try {
            results = new Runner(options).run();
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed (its log: " + log + ")", e);
        }
        List<Comparison> rows = new ArrayList<>();
        List<String> missing = new ArrayList<>(providers);
        for (RunResult r : results) {
            String provider = r.getParams().getParam("provider");
            missing.remove(provider);
            List<Double> perIteration = new ArrayList<>();
            for (BenchmarkResult b : r.getBenchmarkResults()) {
                for (IterationResult i : b.getIterationResults()) {
                    Result<?> a = i.getSecondaryResults().get("gc.alloc.rate.norm");
                    perIteration.add(a == null ? Double.NaN : a.getScore());
                }
            }
            double bytes = steadyState(perIteration);
            double micros = r.getPrimaryResult().getScore();
            out.printf(Locale.ROOT, "JMH callback path, %s: %.1f us per round trip, %.3f B allocated per round trip "
                    + "(iterations: %s)%n", provider, micros, bytes, perIteration);
            rows.add(new Comparison(allocMetric(provider), Double.NaN, bytes, target(provider), "JMH -prof gc, "
                    + perIteration.size() + " iterations, the last one (the trial's teardown) left out: " + String.join(
                            " ", perIteration.stream().map(v -> String.format(Locale.ROOT, "%.1f", v)).toList())));
            rows.add(new Comparison("  JMH round trip, " + provider + " (us)", Double.NaN, micros, Target.none(),
                    String.format(Locale.ROOT, "+-%.1f", r.getPrimaryResult().getScoreError())));
        }
        for (String provider : missing) { // the benchmark failed (JMH logged why and went on)
            out.printf(Locale.ROOT, "JMH callback path, %s: no result, see %s%n", provider, log);
            rows.add(new Comparison(allocMetric(provider), Double.NaN, Double.NaN, target(provider),
                    "failed, see the JMH log"));
        }
        return rows;
    }

    /**
     * The allocation of the steady state: the mean over the measurement iterations but the last. JMH runs a
     * {@code Level.Trial} teardown inside the last iteration, so the gc profiler, which counts every thread, adds the
     * closing of both loops and their connections (exceptions, lambdas linked once) to it: the last iteration of every
     * run stood out (50.4, 62.1, 39.1 B per round trip where the others measured 0.2–1.3). With fewer than three
     * iterations all count.
     */
    static double steadyState(List<Double> perIteration) {
        int n = perIteration.size() >= 3 ? perIteration.size() - 1 : perIteration.size();
        if (n == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += perIteration.get(i);
        }
        return sum / n;
    }

    /**
     * The budget applies to a real provider. The fake is a test double that allocates a work-request object, a CQE
     * and a payload copy per operation by design (a JFR allocation profile puts all of its bytes in {@code
     * dev.ibex.cm.fake}), so its row only shows that nothing else does.
     */
    private static Target target(String provider) {
        return provider.equals("fake") ? Target.none() : Target.figureAtMost(BUDGET);
    }

    private static String allocMetric(String provider) {
        return "callback path alloc/round trip, " + provider + " (B)";
    }
}
