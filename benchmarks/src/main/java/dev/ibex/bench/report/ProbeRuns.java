package dev.ibex.bench.report;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * What the A/B probes (`PingPongProbe`, `SetupProbe`) share: the line that gives their process id to a profiler
 * before the measured runs, the pause that lets it attach, and the medians of the measured runs that the scripts of
 * docs/benchmarks.md collect from fresh JVMs of two builds.
 *
 * <p><b>Threading.</b> Stateless; {@link #announce} sleeps on the calling thread.
 */
public final class ProbeRuns {
    private ProbeRuns() {
    }

    /**
     * Prints {@code measuring, pid <pid>, <what>} and then waits {@code holdMillis} (0: not at all), so that {@code
     * perf stat -p} or {@code perf record -p} can attach before the measured runs.
     */
    public static void announce(PrintStream out, String what, long holdMillis) throws InterruptedException {
        out.println("measuring, pid " + ProcessHandle.current().pid() + ", " + what);
        out.flush();
        if (holdMillis > 0) {
            Thread.sleep(holdMillis);
        }
    }

    /** The median of {@code runs} (the upper one of an even count), sorting a copy. */
    public static double median(double[] runs) {
        double[] s = runs.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** The least of {@code runs}. */
    public static double min(double[] runs) {
        return Arrays.stream(runs).min().orElseThrow();
    }
}
