package dev.ibex.softroce.transport;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that runs QP tasks on behalf of threads that must not do long work themselves (rxe's work queue):
 * receive threads hand over the rest of a retransmission burst or a long READ reply so they can go back to
 * receiving, and the timer thread hands over what its expiries trigger. A task is queued at most once at a time.
 * Handing over allocates nothing: the queue is a preallocated multi-producer ring and the worker sleeps with
 * {@link LockSupport#park} (a {@code BlockingQueue} would allocate a lock node per contended offer and a condition
 * node per wait, i.e. per hand-over under load). If the ring is ever full, the caller runs the task itself.
 */
public final class WorkQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);
    private static final int SLOTS = 1 << 16;
    private static final long IDLE_PARK_NANOS = 100_000_000L;

    private final AtomicReferenceArray<SerialTask> tasks = new AtomicReferenceArray<>(SLOTS);
    /** Per slot: equal to the ticket when free for that producer, ticket + 1 when filled (Vyukov's ring). */
    private final AtomicLongArray sequence = new AtomicLongArray(SLOTS);
    private final AtomicLong tail = new AtomicLong();
    private long head; // worker only
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean closed;

    public WorkQueue(String name) {
        for (int i = 0; i < SLOTS; i++) {
            sequence.set(i, i);
        }
        thread = Thread.ofPlatform().name(name).daemon().unstarted(this::loop);
        thread.start();
    }

    /** Runs {@code task} on the work-queue thread soon. Any thread; allocation-free. */
    public void defer(SerialTask task) {
        if (task.queued.compareAndSet(false, true)) {
            if (closed || !offer(task)) {
                task.queued.set(false);
                task.schedule();
                return;
            }
            // volatile publish (in offer) then volatile read: the worker's sleeping store/queue re-check is the
            // other half of this handshake, so a hand-over is never left behind a sleeping worker
            if (sleeping) {
                LockSupport.unpark(thread);
            }
        }
    }

    /** Whether the calling thread is the work-queue thread. */
    public boolean isWorker() {
        return Thread.currentThread() == thread;
    }

    private boolean offer(SerialTask task) {
        for (;;) {
            long t = tail.get();
            int idx = (int) (t & (SLOTS - 1));
            long dif = sequence.get(idx) - t;
            if (dif == 0) {
                if (tail.compareAndSet(t, t + 1)) {
                    tasks.set(idx, task);
                    sequence.set(idx, t + 1);
                    return true;
                }
            } else if (dif < 0) {
                return false; // full
            }
            Thread.onSpinWait();
        }
    }

    private SerialTask poll() {
        int idx = (int) (head & (SLOTS - 1));
        if (sequence.get(idx) != head + 1) {
            return null;
        }
        SerialTask t = tasks.get(idx);
        tasks.set(idx, null);
        sequence.set(idx, head + SLOTS);
        head++;
        return t;
    }

    private void loop() {
        while (!closed) {
            SerialTask t = poll();
            if (t == null) {
                sleeping = true;
                t = poll(); // re-check after announcing the sleep (see defer)
                if (t == null) {
                    LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                    sleeping = false;
                    continue;
                }
                sleeping = false;
            }
            t.queued.set(false);
            try {
                t.schedule();
            } catch (RuntimeException | Error e) {
                LOG.error("deferred task {} failed", t, e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
