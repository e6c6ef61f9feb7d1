package dev.ibex.softroce.cm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's timers on the fabric's scheduler, sharing one scheduled tick. Arming a timer that is not due before the
 * pending tick only queues it, and cancelling one only drops its task, so the scheduler's thread wakes once per tick,
 * not once per timer armed, cancelled or due. With each timer a task of the executor's own, a connection set up and
 * closed cost about nine futex calls and seven context switches: each answered request's timer and each timewait,
 * armed while no other timer was due sooner, woke the scheduler's thread to wait for it, and each answer's cancel
 * emptied the queue again for the next arm to do the same (docs/benchmarks.md, "Connection setup on loopback").
 *
 * <p>A timer never fires before its deadline; a tick runs every timer due by then, and the tick it schedules next
 * comes no sooner than {@value #GRANULARITY_NANOS} ns later, so a timer may fire up to that much late (plus the
 * executor's own lateness) — nothing against CM timeouts of hundreds of milliseconds. A cancelled timer drops its
 * task at once (and what the task captured, e.g. its id); its slot leaves at the next tick or when the cancelled
 * outnumber the live. A tick whose timers were all cancelled still comes (once), which is what saves the next arms a
 * wake-up. A zero delay ({@link #execute}) goes to the executor directly: it wants its thread now.
 *
 * <p><b>Threading.</b> {@link #schedule} and cancelling from any thread; tasks run on the executor's thread.
 */
final class CmTimerQueue implements CmTimer {
    private static final Logger LOG = LoggerFactory.getLogger(CmTimerQueue.class);
    /** The least time between two ticks: the most a timer fires late when expiries come in a stream. */
    static final long GRANULARITY_NANOS = 1_000_000;
    /** Cancelled slots tolerated before they are purged even while outnumbered by live ones. */
    private static final int PURGE_AT = 256;
    private static final Cancellable NOTHING = () -> { };

    private final ScheduledExecutorService executor;
    private final LongUnaryOperator delayNanos;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>(Comparator.comparingLong((Entry e) -> e.deadline)
            .thenComparingLong(e -> e.seq)); // deadlines compared as values: nanoTime does not wrap within a run
    /** The tasks a tick runs, outside the lock (the executor's thread only). */
    private final List<Runnable> due = new ArrayList<>();
    private long seq;
    private int cancelled;
    /** The pending tick, or null; {@link #tickAt} is its deadline and {@link #generation} tells it from older ones. */
    private ScheduledFuture<?> tick;
    private long tickAt;
    private long generation;

    /**
     * @param executor runs the ticks and the timers' tasks (one thread: the fabric's scheduler)
     * @param delayNanos turns a delay in milliseconds into the nanoseconds to wait (the fabric's timer scale)
     */
    CmTimerQueue(ScheduledExecutorService executor, LongUnaryOperator delayNanos) {
        this.executor = executor;
        this.delayNanos = delayNanos;
    }

    @Override
    public Cancellable schedule(long delayMillis, Runnable task) {
        if (delayMillis <= 0) {
            try {
                ScheduledFuture<?> f = executor.schedule(task, 0, TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            } catch (RejectedExecutionException e) {
                return NOTHING; // the fabric is closing: nothing runs any more
            }
        }
        long now = System.nanoTime();
        ScheduledFuture<?> replaced = null;
        Entry e;
        synchronized (this) {
            e = new Entry(now + Math.max(1, delayNanos.applyAsLong(delayMillis)), seq++, task);
            queue.add(e);
            if (tick == null || e.deadline < tickAt) {
                replaced = tick;
                if (!scheduleTick(e.deadline, now)) {
                    queue.remove(e);
                    return NOTHING;
                }
            }
        }
        if (replaced != null) {
            replaced.cancel(false); // leaves the executor's queue (remove-on-cancel) without waking its thread
        }
        return e;
    }

    /** Timers armed and neither run nor cancelled (diagnostics and tests). */
    synchronized int pending() {
        return queue.size() - cancelled;
    }

    /** Slots in the queue, cancelled ones included (tests). */
    synchronized int slots() {
        return queue.size();
    }

    /** Schedules the tick at {@code deadline} (under the lock); false when the executor takes no more tasks. */
    private boolean scheduleTick(long deadline, long now) {
        long g = ++generation;
        try {
            tick = executor.schedule(() -> tick(g), Math.max(0, deadline - now), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            tick = null;
            return false;
        }
        tickAt = deadline;
        return true;
    }

    private void tick(long g) {
        ScheduledFuture<?> replaced = null;
        synchronized (this) {
            if (g == generation) {
                tick = null; // this one is running; an older one that ran anyway leaves the pending one alone
            }
            long now = System.nanoTime();
            for (Entry head = queue.peek(); head != null && (head.deadline <= now || head.task == null);
                    head = queue.peek()) {
                queue.poll();
                if (head.task == null) {
                    cancelled--;
                } else {
                    due.add(head.task);
                    head.task = null;
                }
            }
            Entry next = queue.peek();
            if (next != null) {
                long at = Math.max(next.deadline, now + GRANULARITY_NANOS);
                if (tick == null || at < tickAt) {
                    replaced = tick;
                    scheduleTick(at, now);
                }
            }
        }
        if (replaced != null) {
            replaced.cancel(false);
        }
        for (int i = 0; i < due.size(); i++) {
            try {
                due.get(i).run();
            } catch (RuntimeException | Error e) {
                LOG.error("soft-roce: a CM timer's task failed", e);
            }
        }
        due.clear();
    }

    /**
     * Drops the timer's task; the pending tick stays even when no live timer is left, so that the timers armed next
     * (typically the next connection's, due no sooner) find it and schedule nothing.
     */
    private synchronized void cancel(Entry e) {
        if (e.task == null) {
            return; // ran or cancelled already
        }
        e.task = null;
        cancelled++;
        if (cancelled >= PURGE_AT && cancelled * 2 > queue.size()) {
            queue.removeIf(x -> x.task == null);
            cancelled = 0;
        }
    }

    /** One armed timer; {@code task} is null once it ran or was cancelled. */
    private final class Entry implements Cancellable {
        final long deadline;
        final long seq;
        Runnable task;

        Entry(long deadline, long seq, Runnable task) {
            this.deadline = deadline;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public void cancel() {
            CmTimerQueue.this.cancel(this);
        }
    }
}
