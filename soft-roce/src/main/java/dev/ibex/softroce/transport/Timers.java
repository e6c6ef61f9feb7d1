package dev.ibex.softroce.transport;

import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that fires the transport's per-QP timers (retransmit, RNR). Made for timers that are pushed back on
 * every ACK: {@link Timer#armAfter} only writes a deadline (a volatile store) while the timer already sits in the
 * queue; the thread re-queues it at the new deadline when the old one comes up. So the data path takes no lock and
 * allocates nothing, and a busy QP costs the timer thread a wake-up per timeout period, not per packet. The queue
 * is guarded by its monitor and the thread sleeps with {@link LockSupport#parkNanos}: unlike a {@code ReentrantLock}
 * and its {@code Condition}, neither allocates a queue node per wait or per contended acquire.
 */
public final class Timers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Timers.class);

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
        private long queuedAt; // under the queue's monitor

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

        /**
         * Disarms and leaves the queue now (its QP is being destroyed). A disarmed timer otherwise stays queued until
         * its old deadline, and with it whatever its action reaches — a destroyed QP with its queues and buffers.
         */
        public void cancel() {
            deadline = 0;
            boolean wasHead;
            synchronized (queue) {
                wasHead = queue.peek() == this;
                if (queued) {
                    queue.remove(this);
                    queued = false;
                }
            }
            if (wasHead) {
                LockSupport.unpark(thread); // it sleeps until this deadline with this timer in hand: let it go
            }
        }
    }

    private void enqueue(Timer t) {
        synchronized (queue) {
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
            if (queue.peek() != t) {
                return;
            }
        }
        LockSupport.unpark(thread); // a new earliest deadline; an unpark before the park makes the park return
    }

    private void loop() {
        while (!closed) {
            Timer due = null;
            boolean empty;
            long wait = 0; // > 0: park that long; else go round at once (or park without limit when empty)
            synchronized (queue) {
                Timer head = queue.peek();
                empty = head == null;
                if (!empty && (wait = head.queuedAt - System.nanoTime()) <= 0) {
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
                    } else if (d - System.nanoTime() > 0) {
                        head.queuedAt = d; // pushed back since it was queued
                        queue.add(head);
                    } else {
                        head.queued = false;
                        head.deadline = 0;
                        due = head;
                    }
                }
            }
            if (due != null) {
                try {
                    due.action.run();
                } catch (RuntimeException | Error e) {
                    LOG.error("timer action failed", e);
                }
            } else if (empty) {
                LockSupport.park(this);
            } else if (wait > 0) {
                LockSupport.parkNanos(this, wait);
            }
        }
    }

    @Override
    public void close() {
        synchronized (queue) {
            closed = true;
            queue.clear();
        }
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
