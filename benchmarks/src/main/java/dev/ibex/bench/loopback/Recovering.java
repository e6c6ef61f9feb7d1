package dev.ibex.bench.loopback;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A workload that is reopened when a run has no outcome within its limit: stalled (a completion whose wake-up was
 * lost would leave both loops parked with it in the CQ) or too slow (spinning loops on a host without a free core per
 * side make a thousand round trips a second); the workload's message says which. The run is repeated on a fresh
 * connection, at most {@code maxStalls} times per workload; how many there were goes into the table's notes, so a
 * figure never hides one.
 */
final class Recovering<W extends AutoCloseable> implements AutoCloseable {
    private final String name;
    private final Supplier<W> opener;
    private final int maxStalls;
    private final PrintStream out;
    private W workload;
    private int stalls;

    Recovering(String name, Supplier<W> opener, int maxStalls, PrintStream out) {
        this.name = name;
        this.opener = opener;
        this.maxStalls = maxStalls;
        this.out = out;
        this.workload = opener.get();
    }

    /** Runs {@code run} on the workload; a stall reopens it and runs again. */
    <T> T run(Function<W, T> run) {
        while (true) {
            try {
                return run.apply(workload);
            } catch (IllegalStateException e) {
                if (++stalls > maxStalls) {
                    throw e;
                }
                String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                out.printf(Locale.ROOT, "%s stalled (%s); reopening it (stall %d, at most %d)%n", name, why, stalls,
                        maxStalls);
                closeQuietly(workload);
                workload = opener.get();
            }
        }
    }

    /** Runs that stalled and were repeated on a fresh connection. */
    int stalls() {
        return stalls;
    }

    String name() {
        return name;
    }

    @Override
    public void close() {
        closeQuietly(workload);
    }

    private void closeQuietly(W w) {
        try {
            w.close();
        } catch (Exception e) {
            out.println(name + ": closing failed: " + e);
        }
    }
}
