package dev.ibex.bench.report;

import java.time.Duration;

/**
 * Bounds a whole benchmark program: a raw socket baseline blocks forever if a datagram is lost, and a benchmark
 * must end, so after {@code limit} the process prints what it was doing and exits with status 2.
 */
public final class Watchdog {
    private volatile String phase = "starting";

    private Watchdog() {
    }

    /** Starts a daemon thread that ends the process after {@code limit}. */
    public static Watchdog start(Duration limit) {
        Watchdog w = new Watchdog();
        Thread.ofPlatform().daemon().name("bench-watchdog").start(() -> {
            long deadline = System.nanoTime() + limit.toNanos();
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(left);
            }
            System.err.println("benchmark exceeded " + limit.toSeconds() + " s while " + w.phase + "; giving up");
            System.exit(2);
        });
        return w;
    }

    /** A watchdog that never fires (a harness driven by a test, which has its own bounds). */
    public static Watchdog inert() {
        return new Watchdog();
    }

    /** What the program does now (printed if it hangs). */
    public void phase(String what) {
        phase = what;
    }
}
