package dev.ibex.softroce.cm;

import java.util.PriorityQueue;

/** A {@link CmTimer} on a virtual clock that only moves when a test says so: deterministic timeouts. */
final class VirtualTimer implements CmTimer {
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private long now;
    private long seq;

    private static final class Task implements Comparable<Task> {
        final long due;
        final long seq;
        final Runnable run;
        boolean cancelled;

        Task(long due, long seq, Runnable run) {
            this.due = due;
            this.seq = seq;
            this.run = run;
        }

        @Override
        public int compareTo(Task o) {
            return due != o.due ? Long.compare(due, o.due) : Long.compare(seq, o.seq);
        }
    }

    @Override
    public synchronized Cancellable schedule(long delayMillis, Runnable task) {
        Task t = new Task(now + delayMillis, seq++, task);
        tasks.add(t);
        return () -> t.cancelled = true;
    }

    synchronized long now() {
        return now;
    }

    /** Live (not cancelled) tasks. */
    synchronized int pending() {
        return (int) tasks.stream().filter(t -> !t.cancelled).count();
    }

    /** Due time of the next live task, or {@link Long#MAX_VALUE}. */
    synchronized long nextDue() {
        while (!tasks.isEmpty() && tasks.peek().cancelled) {
            tasks.poll();
        }
        return tasks.isEmpty() ? Long.MAX_VALUE : tasks.peek().due;
    }

    /** Runs the next live task if it is due by {@code until}, moving the clock to its due time. */
    boolean runNext(long until) {
        Task t;
        synchronized (this) {
            if (nextDue() > until) {
                return false;
            }
            t = tasks.poll();
            now = Math.max(now, t.due);
        }
        t.run.run();
        return true;
    }

    synchronized void advanceTo(long time) {
        now = Math.max(now, time);
    }
}
