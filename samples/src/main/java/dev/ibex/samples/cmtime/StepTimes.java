package dev.ibex.samples.cmtime;

import java.io.PrintStream;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Start and end times of every step, for the whole run and per connection, and cmtime's table: per step the
 * total wall time, the slowest and fastest connection, and the total divided by the number of connections.
 */
final class StepTimes {
    private static final int STEPS = Step.values().length;

    private final int connections;
    private final long[][] total = new long[STEPS][2];
    private final long[][][] perNode;

    StepTimes(int connections) {
        this.connections = connections;
        this.perNode = new long[connections][STEPS][2];
    }

    void start(Step s) {
        total[s.ordinal()][0] = System.nanoTime();
    }

    void end(Step s) {
        total[s.ordinal()][1] = System.nanoTime();
    }

    void start(int node, Step s) {
        perNode[node][s.ordinal()][0] = System.nanoTime();
    }

    void end(int node, Step s) {
        perNode[node][s.ordinal()][1] = System.nanoTime();
    }

    /** The step's wall time in microseconds (0 when it did not run). */
    double totalMicros(Step s) {
        long[] t = total[s.ordinal()];
        return t[0] == 0 || t[1] == 0 ? 0 : (t[1] - t[0]) / 1000.0;
    }

    /** Prints the table for {@code shown} steps, in cmtime's format. */
    void print(PrintStream out, Set<Step> shown) {
        out.println("step              total ms     max ms     min us  us / conn");
        for (Step s : Step.values()) {
            if (!shown.contains(s)) {
                continue;
            }
            double max = 0;
            double min = 999999999.;
            for (long[][] node : perNode) {
                long[] t = node[s.ordinal()];
                if (t[0] != 0 && t[1] != 0) {
                    double us = (t[1] - t[0]) / 1000.0;
                    max = Math.max(max, us);
                    min = Math.min(min, us);
                }
            }
            double us = totalMicros(s);
            out.printf(Locale.ROOT, "%-13s: %11.2f%11.2f%11.2f%11.2f%n", s.label(), us / 1000., max / 1000., min,
                    us / connections);
        }
    }

    static Set<Step> all(boolean bound) {
        Set<Step> s = EnumSet.allOf(Step.class);
        if (!bound) {
            s.remove(Step.BIND);
        }
        return s;
    }
}
