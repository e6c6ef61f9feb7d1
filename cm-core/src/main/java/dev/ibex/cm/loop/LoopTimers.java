package dev.ibex.cm.loop;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A loop's timers ({@link EventLoop#schedule}): added on the loop thread, in a {@link TimerHeap} by deadline and
 * then by the order they reached the loop; each turn runs those due, and the loop's wait ends at the next deadline.
 * No thread per timer.
 *
 * <p>It also keeps the turn's clock reading ({@link #now()}): a turn reads the clock at most once for its timers,
 * its wait and the start of its CQ spin, and not at all for its timers when none waits. A clock read is ~20 ns on
 * hardware but an emulated HPET read in a TCG guest such as the Soft-RoCE VM (issue 18), where a busy-polling loop
 * turns once per message.
 *
 * <p>Threading: the loop thread only.
 */
final class LoopTimers {
    /** Runs a due timer's task ({@link EventLoop#guarded}). */
    private final Consumer<Runnable> runner;
    /** {@link System#nanoTime()} in the loop; a counting clock in tests. */
    private final LongSupplier clock;
    private final TimerHeap heap = new TimerHeap();
    private long seq;
    /** The turn's clock reading, valid while {@link #fresh}. */
    private long now;
    /** Whether {@link #now} was read this turn and no timer's task ran since. */
    private boolean fresh;

    LoopTimers(Consumer<Runnable> runner, LongSupplier clock) {
        this.runner = runner;
        this.clock = clock;
    }

    /** Adds {@code t} unless it was cancelled on its way to the loop. */
    void add(ScheduledTask t) {
        if (!t.isCancelled()) {
            t.seq = seq++; // FIFO among equal deadlines, in the order they reach the loop
            heap.add(t);
        }
    }

    /** Removes {@code t} if it waits (a cancel on the loop). */
    void remove(ScheduledTask t) {
        heap.remove(t);
    }

    /**
     * Starts a turn: runs the timers whose deadline has come (cancelled ones are dropped). It reads the clock only
     * when a timer waits; that reading serves the rest of the turn unless a timer's task ran (it may have taken time).
     */
    void runDue() {
        fresh = false; // a new turn
        ScheduledTask t = heap.peek();
        if (t == null) {
            return; // no timer: no clock read
        }
        long at = now();
        boolean ran = false;
        while (t != null && t.deadlineNanos - at <= 0) {
            heap.poll();
            if (!t.isCancelled()) {
                t.done = true;
                ran = true;
                runner.accept(t.task);
            }
            t = heap.peek();
        }
        if (ran) {
            fresh = false;
        }
    }

    /** {@return nanoseconds until the next deadline (0 when one is due), or -1 when no timer waits} */
    long untilNext() {
        ScheduledTask next = heap.peek();
        return next == null ? -1 : Math.max(0, next.deadlineNanos - now());
    }

    /** {@return the turn's clock reading: read once per turn, on first need, after {@link #runDue()}} */
    long now() {
        if (!fresh) {
            now = clock.getAsLong();
            fresh = true;
        }
        return now;
    }
}
