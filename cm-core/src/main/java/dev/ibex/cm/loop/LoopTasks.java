package dev.ibex.cm.loop;

import dev.ibex.cm.queue.MpscQueue;
import dev.ibex.cm.spi.Poller;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * A loop's task queue and its back-pressure: the bounded ring every thread submits to (allocation-free), the sleep
 * handshake that wakes the loop for a task, what a submitter does when the ring is full — a thread that is not a
 * loop waits, a loop thread keeps the task in its {@link Outbox} (a loop never waits for another loop: two waiting
 * for each other's full queue would deadlock) — and the tasks that race in after the loop terminated.
 *
 * <p>Threading: {@link #add} and {@link #offer} from any thread; the rest on the loop thread (the outbox is its
 * thread's), but for {@link #runLeftovers}.
 */
final class LoopTasks {
    /** Tasks one turn runs at most: tasks that keep submitting tasks must not starve I/O. */
    private static final int MAX_PER_TURN = 1024;

    private final EventLoop loop;
    private final Poller poller;
    /** Tasks from every thread (the loop's own included). */
    private final MpscQueue<Runnable> queue;
    /** This loop thread's tasks for loops (itself included) whose queue was full. */
    private final Outbox outbox = new Outbox();
    private final Object leftovers = new Object();
    /** The loop is blocking (or about to) in its poller: an offer from another thread wakes it. */
    private volatile boolean sleeping;
    /** How many times a thread that is not a loop found the queue full and waited (racy count). */
    private volatile long producerWaits;

    LoopTasks(EventLoop loop, Poller poller, int capacity) {
        this.loop = loop;
        this.poller = poller;
        this.queue = new MpscQueue<>(capacity);
    }

    /**
     * Queues {@code task} for this loop (which had not terminated when {@link EventLoop#execute} looked): a loop
     * thread through its outbox, another thread waiting for room when the queue is full. Any thread.
     */
    void add(Runnable task) {
        if (Thread.currentThread() instanceof LoopThread t) {
            t.loop.tasks().outbox.send(this, task);
        } else if (!offer(task)) {
            offerWaiting(task);
        }
    }

    /** Queues {@code task} if there is room and wakes the loop if it sleeps. Any thread. */
    boolean offer(Runnable task) {
        if (!queue.offer(task)) {
            return false;
        }
        if (loop.isTerminated()) { // the loop's last drain may have run before this offer: nothing may stay behind
            runLeftovers();
        } else if (sleeping && !loop.inEventLoop()) {
            // the offer's CAS on the tail, then this volatile read: sleep() stores the flag, then reads the tail
            poller.wakeup();
        }
        return true;
    }

    /** A thread that is not a loop found the queue full: waits for room, or fails once the loop has terminated. */
    private void offerWaiting(Runnable task) {
        producerWaits++; // racy: a statistic
        for (int spins = 0; !offer(task); spins++) {
            if (loop.isTerminated()) {
                throw new RejectedExecutionException("event loop " + loop + " has terminated");
            }
            if (spins < 100) {
                Thread.onSpinWait();
            } else if (spins < 1_000) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /**
     * A terminating loop's thread hands over what it kept for this loop: it serves nothing any more, so it may
     * wait, but as a loop thread it must not call what BlockHound counts as blocking; this loop drains its queue
     * every turn, and once terminated it takes no more (the task then runs on the calling thread).
     */
    private void offerSpinning(Runnable task) {
        while (!offer(task)) {
            if (loop.isTerminated()) {
                loop.guarded(task); // as a task that raced in before TERMINATED was visible
                return;
            }
        }
    }

    /** A turn's tasks: first this thread's kept ones, then those queued when the turn began. Loop thread. */
    void runTurn() {
        outbox.flush(); // first in line again
        int n = Math.min(queue.size(), MAX_PER_TURN);
        for (int i = 0; i < n; i++) {
            Runnable r = queue.poll();
            if (r == null) {
                break; // a producer claimed a slot and is still writing it: the next turn takes it
            }
            loop.guarded(r);
        }
    }

    /** {@return whether a task waits for this loop: queued, or kept by its thread as the next for itself} */
    boolean pending() {
        return !queue.isEmpty() || outbox.headIsFor(this);
    }

    /** {@return whether this loop's thread keeps tasks for a loop whose queue was full} */
    boolean keepsTasks() {
        return !outbox.isEmpty();
    }

    /**
     * The loop is about to block in its poller: from here on an offer from another thread wakes it. The flag's
     * store comes before the look at the queue and an offer's CAS on the tail before its read of the flag, so one
     * of them sees the other ({@link MpscQueue}'s sleep handshake).
     *
     * @return false when a task raced in before the flag was visible: the loop must not block
     */
    boolean sleep() {
        sleeping = true;
        return queue.isEmpty();
    }

    /** The loop is back from its poller. */
    void awake() {
        sleeping = false;
    }

    /**
     * After termination: runs what is queued, on the calling thread, as tasks that raced in before TERMINATED was
     * visible always did. The lock makes the threads that may get here consumers one at a time (the queue has a
     * single consumer); it waits for a slot a producer claimed but has not written yet, which takes nanoseconds.
     */
    void runLeftovers() {
        synchronized (leftovers) {
            while (!queue.isEmpty()) {
                Runnable r = queue.poll();
                if (r != null) {
                    loop.guarded(r);
                }
            }
        }
    }

    /**
     * The loop has terminated: runs what raced in and hands over what its thread kept (while closing its devices:
     * rare) to the loops it was for, running its own.
     */
    void terminate() {
        runLeftovers();
        LoopTasks target;
        while ((target = outbox.peekTarget()) != null) {
            Runnable kept = outbox.take();
            if (target == this) {
                loop.guarded(kept);
            } else {
                target.offerSpinning(kept);
            }
        }
    }

    /** {@return how many times a thread that is not a loop waited for room in the queue} */
    long producerWaits() {
        return producerWaits;
    }

    /** {@return how many tasks this loop's thread had to keep in its outbox because a task queue was full} */
    long outboxDeferred() {
        return outbox.deferred();
    }
}
