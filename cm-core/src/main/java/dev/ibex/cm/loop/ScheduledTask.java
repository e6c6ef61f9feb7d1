package dev.ibex.cm.loop;

/**
 * A task an {@link EventLoop} runs at a deadline (connect timeouts, drain deadlines). Timers live in the loop's
 * priority queue; there is no thread per timer. Tasks with the same deadline run in the order they were scheduled.
 */
public final class ScheduledTask implements Comparable<ScheduledTask> {
    private final EventLoop loop;
    final Runnable task;
    final long deadlineNanos;
    long seq;
    /** Its slot in the loop's {@link TimerHeap}, -1 when in none (loop thread only). */
    int heapIndex = -1;
    private volatile boolean cancelled;
    boolean done;

    ScheduledTask(EventLoop loop, Runnable task, long deadlineNanos) {
        this.loop = loop;
        this.task = task;
        this.deadlineNanos = deadlineNanos;
    }

    /** Prevents the task from running if it has not started. Thread-safe. */
    public void cancel() {
        cancelled = true;
        if (loop.inEventLoop()) {
            loop.removeTimer(this);
        }
    }

    /** {@return whether {@link #cancel()} was called} */
    public boolean isCancelled() {
        return cancelled;
    }

    /** {@return the {@link System#nanoTime()} at which the task runs} */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public int compareTo(ScheduledTask o) {
        int c = Long.compare(deadlineNanos - o.deadlineNanos, 0);
        return c != 0 ? c : Long.compare(seq, o.seq);
    }
}
