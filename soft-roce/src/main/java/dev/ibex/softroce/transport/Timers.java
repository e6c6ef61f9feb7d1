package dev.ibex.softroce.transport;

import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that fires the transport's per-QP timers (retransmit, RNR). Made for timers that are pushed back on
 * every ACK: {@link Timer#armAfter} only writes a deadline (a volatile store) while the timer already sits in the
 * queue; the thread re-queues it at the new deadline when the old one comes up. So the data path takes no lock and
 * allocates nothing, and a busy QP costs the timer thread a wake-up per timeout period, not per packet.
 */
public final class Timers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Timers.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Timer> queue = new PriorityQueue<>(64,
            (a, b) -> Long.compare(a.queuedAt - b.queuedAt, 0));
    private final Thread thread;
    private volatile boolean closed;

    public Timers(String name) {
        thread = Thread.ofPlatform().name(name).daemon().unstarted(this::loop);
        thread.start();
    }

    /** A re-armable timer whose expiry runs {@code action} on the timer thread. */
    public Timer newTimer(Runnable action) {
        return new Timer(action);
    }

    /** A timer owned by one QP. */
    public final class Timer {
        private final Runnable action;
        /** 0 = disarmed; else the System.nanoTime() at which it fires. */
        private volatile long deadline;
        private volatile boolean queued;
        private long queuedAt; // under lock

        private Timer(Runnable action) {
            this.action = action;
        }

        /** Fires {@code nanos} from now (replacing an earlier deadline). */
        public void armAfter(long nanos) {
            long d = System.nanoTime() + Math.max(1, nanos);
            deadline = d == 0 ? 1 : d;
            if (!queued) {
                enqueue(this);
            }
        }

        /** Arms only if not armed already (rxe's "mod_timer if !timer_pending"). */
        public void armIfIdle(long nanos) {
            if (deadline == 0) {
                armAfter(nanos);
            }
        }

        public void disarm() {
            deadline = 0;
        }

        public boolean isArmed() {
            return deadline != 0;
        }
    }

    private void enqueue(Timer t) {
        lock.lock();
        try {
            if (t.queued || closed) {
                return;
            }
            long d = t.deadline;
            if (d == 0) {
                return;
            }
            t.queued = true;
            t.queuedAt = d;
            queue.add(t);
            if (queue.peek() == t) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        while (!closed) {
            Timer due = null;
            lock.lock();
            try {
                Timer head = queue.peek();
                if (head == null) {
                    changed.awaitUninterruptibly();
                    continue;
                }
                long wait = head.queuedAt - System.nanoTime();
                if (wait > 0) {
                    changed.awaitNanos(wait);
                    continue;
                }
                queue.poll();
                long d = head.deadline;
                if (d == 0) {
                    head.queued = false;
                    // re-check: an arm may have raced with the decision to drop
                    if (head.deadline != 0) {
                        head.queued = true;
                        head.queuedAt = head.deadline;
                        queue.add(head);
                    }
                    continue;
                }
                if (d - System.nanoTime() > 0) {
                    head.queuedAt = d; // pushed back since it was queued
                    queue.add(head);
                    continue;
                }
                head.queued = false;
                head.deadline = 0;
                due = head;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                lock.unlock();
            }
            try {
                due.action.run();
            } catch (RuntimeException | Error e) {
                LOG.error("timer action failed", e);
            }
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            queue.clear();
            changed.signal();
        } finally {
            lock.unlock();
        }
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
