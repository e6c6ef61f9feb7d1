package dev.ibex.samples.manual;

import java.time.Duration;

/**
 * The bound {@code --timeout} puts on every blocking step of a manual program (the C programs block forever in
 * {@code accept}, {@code rdma_get_cm_event} and {@code ibv_get_cq_event}). Immutable; any thread.
 */
record Deadline(long atNanos) {
    /** No bound. */
    static final Deadline NONE = new Deadline(Long.MAX_VALUE);

    /** {@code timeout} from now, or {@link #NONE} when {@code null}. */
    static Deadline after(Duration timeout) {
        return timeout == null ? NONE : new Deadline(System.nanoTime() + timeout.toNanos());
    }

    /** How long a wait may block now: at most 100 ms, so that each wait re-checks; throws once expired. */
    long waitNanos() {
        if (atNanos == Long.MAX_VALUE) {
            return 100_000_000L;
        }
        long left = atNanos - System.nanoTime();
        if (left <= 0) {
            throw new Expired();
        }
        return Math.min(left, 100_000_000L);
    }

    /** Milliseconds left, at least 1, for socket timeouts; 0 (none) without a bound. */
    int socketMillis() {
        if (atNanos == Long.MAX_VALUE) {
            return 0;
        }
        long left = (atNanos - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
            throw new Expired();
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** The deadline passed: the program ends with {@code SampleRun.TIMED_OUT}. */
    static final class Expired extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Expired() {
            super("timed out", null, false, false);
        }
    }
}
