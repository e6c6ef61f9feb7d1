package dev.ibex.cm.spi;

/**
 * How long a {@link Poller} spins (polls without blocking) before it blocks, for the one thread that polls.
 *
 * <p>A spin trades CPU for the thread wake-up a blocking wait costs when work comes: on a machine where a wake-up
 * takes longer than the peer's answer (virtual CPUs, idle cores in deep sleep) a short spin saves latency and CPU
 * both. Three kinds:
 * <ul>
 *   <li>{@link #none()}: block at once.
 *   <li>{@link #fixed}: every idle poll spins the same time — a core traded for latency, for applications that own one.
 *   <li>{@link #adaptive}: the window follows the waits, as Linux KVM's halt polling does. A wait that blocked and
 *       ended within the maximum would have been caught by a longer spin: the window grows (from
 *       {@value #GROW_START_NANOS} ns, doubling, up to the maximum). A wait that lasted longer than the maximum (or
 *       timed out) would have been spun in vain: the window halves, and falls to 0 below the starting value. A spin that
 *       catches its work leaves the window as it is. So a loop whose peer answers within the maximum stops sleeping
 *       between messages, and one whose traffic is sparse spins at most the few windows it takes to shrink.
 * </ul>
 *
 * <p>Threading: confined to the polling thread; allocates nothing.
 */
public final class IdleSpin {
    /** The first window an adaptive spin opens: a fraction of a wake-up, so a useless spin costs little. */
    public static final long GROW_START_NANOS = 2_000;

    private final long max;
    private final boolean adaptive;
    private long window;

    private IdleSpin(long max, boolean adaptive) {
        if (max < 0) {
            throw new IllegalArgumentException("a spin time must not be negative, got " + max);
        }
        this.max = max;
        this.adaptive = adaptive;
        this.window = adaptive ? 0 : max;
    }

    /** {@return a poller's spin that never spins: it blocks at once} */
    public static IdleSpin none() {
        return new IdleSpin(0, false);
    }

    /**
     * A spin of {@code nanos} at every idle poll.
     *
     * @param nanos how long each idle poll spins (0: never)
     * @return the spin
     * @throws IllegalArgumentException when {@code nanos} is negative
     */
    public static IdleSpin fixed(long nanos) {
        return new IdleSpin(nanos, false);
    }

    /**
     * A spin whose window adapts to the waits, between 0 and {@code maxNanos}; it starts at 0.
     *
     * @param maxNanos the longest an idle poll spins, and the longest wait the window grows for (0: never spins)
     * @return the spin
     * @throws IllegalArgumentException when {@code maxNanos} is negative
     */
    public static IdleSpin adaptive(long maxNanos) {
        return new IdleSpin(maxNanos, true);
    }

    /** {@return how long the next idle poll spins before it blocks, in nanoseconds (0: it blocks at once)} */
    public long window() {
        return window;
    }

    /** {@return whether the window adapts to the waits} */
    public boolean isAdaptive() {
        return adaptive;
    }

    /** {@return the longest window, in nanoseconds} */
    public long max() {
        return max;
    }

    /**
     * An idle poll's spin (if any) found nothing, it blocked, and work or a wake-up ended the wait {@code idleNanos}
     * after the poll went idle (the spin included). A poller that can tell when the work came, not only when its thread
     * woke for it, passes the former: a spin catches work as it comes, so the thread's wake-up delay — tens of µs
     * on some virtual machines, more than the answer it waits for — must not keep the window shut.
     *
     * @param idleNanos how long the poll was idle until the work came (or, where that is not known, until it woke)
     */
    public void blockedFor(long idleNanos) {
        if (!adaptive) {
            return;
        }
        if (idleNanos <= max) {
            window = window == 0 ? Math.min(GROW_START_NANOS, max) : Math.min(max, window * 2);
        } else {
            shrink();
        }
    }

    /** An idle poll blocked until its timeout: no work came that a spin could have caught. */
    public void timedOut() {
        if (adaptive) {
            shrink();
        }
    }

    private void shrink() {
        long half = window / 2;
        window = half < GROW_START_NANOS ? 0 : half;
    }

    @Override
    public String toString() {
        return adaptive ? "IdleSpin[adaptive, max " + max + " ns, window " + window + " ns]"
                : "IdleSpin[" + (max == 0 ? "none" : "fixed " + max + " ns") + "]";
    }
}
