package dev.ibex.cm.loop;

/**
 * A loop's timers ({@link EventLoop#schedule}): added on the loop thread, in a {@link TimerHeap} by deadline and
 * then by the order they reached the loop; each turn runs those due, and the loop's wait ends at the next deadline.
 * No thread per timer.
 *
 * <p>Threading: the loop thread only.
 */
final class LoopTimers {
    private final EventLoop loop;
    private final TimerHeap heap = new TimerHeap();
    private long seq;

    LoopTimers(EventLoop loop) {
        this.loop = loop;
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

    /** Runs the timers whose deadline has come (cancelled ones are dropped). */
    void runDue() {
        long now = System.nanoTime();
        ScheduledTask t;
        while ((t = heap.peek()) != null && t.deadlineNanos - now <= 0) {
            heap.poll();
            if (!t.isCancelled()) {
                t.done = true;
                loop.guarded(t.task);
            }
        }
    }

    /** {@return nanoseconds until the next deadline (0 when one is due), or -1 when no timer waits} */
    long untilNext() {
        ScheduledTask next = heap.peek();
        return next == null ? -1 : Math.max(0, next.deadlineNanos - System.nanoTime());
    }
}
