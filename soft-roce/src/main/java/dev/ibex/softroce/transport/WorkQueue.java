package dev.ibex.softroce.transport;

import dev.ibex.softroce.verbs.SerialTask;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that runs QP tasks on behalf of threads that must not do long work themselves (rxe's work queue):
 * receive threads hand over the rest of a retransmission burst or a long READ reply so they can go back to
 * receiving, and the timer thread hands over what its expiries trigger. A task is queued at most once at a time;
 * the queue is a preallocated array, so handing over allocates nothing. If it is ever full, the caller runs the
 * task itself.
 */
public final class WorkQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);

    private final ArrayBlockingQueue<SerialTask> queue = new ArrayBlockingQueue<>(1 << 16);
    private final Thread thread;
    private volatile boolean closed;

    public WorkQueue(String name) {
        thread = Thread.ofPlatform().name(name).daemon().unstarted(this::loop);
        thread.start();
    }

    /** Runs {@code task} on the work-queue thread soon. Any thread; allocation-free. */
    public void defer(SerialTask task) {
        if (task.queued.compareAndSet(false, true)) {
            if (closed || !queue.offer(task)) {
                task.queued.set(false);
                task.schedule();
            }
        }
    }

    /** Whether the calling thread is the work-queue thread. */
    public boolean isWorker() {
        return Thread.currentThread() == thread;
    }

    private void loop() {
        while (!closed) {
            SerialTask t;
            try {
                t = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (t == null) {
                continue;
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
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
