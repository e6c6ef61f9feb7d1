package dev.ibex.cm.buffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-shot tasks that wait for a pool's buffers: those that wait for any free buffer ({@link BufferPool#whenFree})
 * and the receive queues that wait for more than the {@link BufferPool#receiveReserve()}
 * ({@link BufferPool#whenReceivable(Runnable)}), woken together by one task the owner schedules
 * ({@link BufferPool#wakeWith}) when buffers come back or the pool grows. Owner thread only.
 */
final class PoolWaiters {
    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);

    private final BufferPool pool;
    private final java.util.ArrayDeque<Runnable> free = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<Runnable> receivable = new java.util.ArrayDeque<>();
    private Runnable wakeScheduler;
    private boolean wakeQueued;

    PoolWaiters(BufferPool pool) {
        this.pool = pool;
    }

    void wakeWith(Runnable scheduler) {
        this.wakeScheduler = scheduler;
    }

    /** Adds a task that waits for any free buffer (the pool wakes it at once when one is there). */
    void addFree(Runnable task) {
        free.add(task);
    }

    /** Adds a task that waits for more than the receive reserve (the pool wakes it at once when it is there). */
    void addReceivable(Runnable task) {
        receivable.add(task);
    }

    /** A buffer came back: wake the waiters that it may serve. */
    void released(int headroom) {
        if (!free.isEmpty() || !receivable.isEmpty() && headroom > pool.receiveReserve()) {
            wake();
        }
    }

    /** Schedules one {@link #run} if anyone waits and none is scheduled yet. */
    void wake() {
        if (!wakeQueued && wakeScheduler != null && (!free.isEmpty() || !receivable.isEmpty())) {
            wakeQueued = true;
            wakeScheduler.run();
        }
    }

    /** Runs the waiters while buffers are free, those for any buffer first (the scheduled wake-up). */
    void run() {
        wakeQueued = false;
        int n = free.size();
        for (int i = 0; i < n && !pool.isClosed() && pool.canAcquire(); i++) {
            Runnable r = free.poll();
            if (r == null) {
                break;
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("a task waiting for a buffer of {} failed", pool, e);
            }
        }
        int m = receivable.size();
        for (int i = 0; i < m && !pool.isClosed() && pool.headroom() > pool.receiveReserve(); i++) {
            Runnable r = receivable.poll();
            if (r == null) {
                return;
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("a receive queue waiting for a buffer of {} failed", pool, e);
            }
        }
    }
}
