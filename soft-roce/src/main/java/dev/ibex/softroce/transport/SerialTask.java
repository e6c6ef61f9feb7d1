package dev.ibex.softroce.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a body on at most one thread at a time without making anyone wait — rxe's per-QP task, done with the
 * work-in-progress counter of a drain loop. A thread that schedules the task while it is idle runs the body
 * itself, at once (no thread hop); a schedule while another thread runs it makes that thread go round once more.
 * No lock and no allocation on the way.
 *
 * <p>The body must be idempotent in the sense "do whatever work is pending now"; it may run more often than it
 * was scheduled, never less. Control operations that must not race with the body (QP modify, destroy) use
 * {@link #runExclusive}, which spins (it never parks) until the task is idle.
 */
public final class SerialTask {
    private static final Logger LOG = LoggerFactory.getLogger(SerialTask.class);

    private final AtomicInteger wip = new AtomicInteger();
    /** Whether the task sits in a {@code WorkQueue} (so it is queued at most once). */
    public final java.util.concurrent.atomic.AtomicBoolean queued = new java.util.concurrent.atomic.AtomicBoolean();
    private final Runnable body;
    private final String name;
    private volatile Thread owner;

    public SerialTask(String name, Runnable body) {
        this.name = name;
        this.body = body;
    }

    /** Runs the body now on this thread if the task is idle, else makes the running thread run it again. */
    public void schedule() {
        if (wip.getAndIncrement() == 0) {
            drain(1);
        }
    }

    /**
     * Makes the thread that runs the task go round once more, if one does; never runs the body itself.
     *
     * @return {@code false} if the task is idle (the caller must get it run elsewhere)
     */
    public boolean nudge() {
        for (;;) {
            int w = wip.get();
            if (w == 0) {
                return false;
            }
            if (wip.compareAndSet(w, w + 1)) {
                return true;
            }
        }
    }

    /**
     * Takes the task if it is idle, so the caller can do work inline that must not race with the body (the
     * receive path uses it to process a packet in place). On {@code true} the caller must call
     * {@link #leave()} after its work, which also runs the body at least once.
     */
    public boolean tryEnter() {
        if (wip.compareAndSet(0, 1)) {
            owner = Thread.currentThread();
            return true;
        }
        return false;
    }

    /** Ends an inline section begun by {@link #tryEnter()}: runs the body until no schedule is pending. */
    public void leave() {
        drain(1);
    }

    /**
     * Ends an inline section begun by {@link #tryEnter()} without running the body here: for receive threads,
     * which must get back to receiving. Returns {@code true} if the body must still run — another thread
     * scheduled the task meanwhile, or {@code moreWork} — and the caller then hands the task to a work queue
     * (it runs at least once there, which covers every pending schedule). A boolean rather than a callback, so
     * the data path creates no capturing lambda per packet.
     */
    public boolean leaveForLater(boolean moreWork) {
        owner = null;
        int prev = wip.getAndSet(0);
        return prev > 1 || moreWork;
    }

    /** Whether the calling thread is running the body or an inline section right now. */
    public boolean isOwner() {
        return owner == Thread.currentThread();
    }

    /**
     * Runs {@code action} while no other thread runs the body, then runs the body. Re-entrant: called from the
     * body (or an inline section) it runs {@code action} directly. Spins and yields while another thread holds
     * the task — the body never waits for anything, so the wait is bounded by one drain.
     */
    public void runExclusive(Runnable action) {
        if (isOwner()) {
            action.run();
            return;
        }
        int spins = 0;
        while (!wip.compareAndSet(0, 1)) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else if (spins < 10_000) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(10_000);
            }
        }
        owner = Thread.currentThread();
        try {
            action.run();
        } finally {
            drain(1);
        }
    }

    private void drain(int missed) {
        for (;;) {
            owner = Thread.currentThread();
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                LOG.error("{} failed; the task keeps running", name, e);
            }
            owner = null;
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "SerialTask[" + name + "]";
    }
}
