package dev.ibex.softroce.transport;

import dev.ibex.cm.queue.MpscQueue;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread that runs QP tasks on behalf of threads that must not do long work themselves (rxe's work queue):
 * receive threads hand over the rest of a retransmission burst or a long READ reply so they can go back to
 * receiving, and the timer thread hands over what its expiries trigger. A loop that receives its own packets keeps
 * such work for its own next turn instead ({@link NextTurn}). A task is queued at most once at a time.
 * Handing over allocates nothing: the queue is cm-core's bounded {@link MpscQueue} and the worker sleeps with
 * {@link LockSupport#park} (a {@code BlockingQueue} would allocate a lock node per contended offer and a condition
 * node per wait, i.e. per hand-over under load). If the queue is ever full, the caller runs the task itself: no
 * task is lost, and a task is queued at most once, so the queue fills only with more than 65,536 tasks.
 *
 * <p>Threading: {@link #defer} and {@link #close} from any thread; one worker thread runs the tasks.
 */
public final class WorkQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);
    private static final int SLOTS = 1 << 16;
    private static final long IDLE_PARK_NANOS = 100_000_000L;

    private final MpscQueue<SerialTask> tasks;
    private final Thread thread;
    private volatile boolean sleeping;
    /** Tasks the worker ran. */
    private final java.util.concurrent.atomic.LongAdder ran = new java.util.concurrent.atomic.LongAdder();
    private volatile boolean closed;

    /**
     * Starts the worker thread.
     *
     * @param name the worker thread's name
     */
    public WorkQueue(String name) {
        this(name, SLOTS);
    }

    WorkQueue(String name, int slots) {
        tasks = new MpscQueue<>(slots);
        thread = Thread.ofPlatform().name(name).daemon().unstarted(this::loop);
        thread.start();
    }

    /**
     * Runs {@code task} on the work-queue thread soon — or, called on a loop that receives its own packets, on that
     * loop's next turn ({@link NextTurn}: no thread hop). Any thread; allocation-free.
     */
    public void defer(SerialTask task) {
        if (task.queued.compareAndSet(false, true)) {
            NextTurn turn = NextTurn.onThisThread();
            if (turn != null) {
                turn.add(task, this);
                return;
            }
            if (closed || !tasks.offer(task)) {
                task.queued.set(false);
                task.schedule();
                return;
            }
            // the offer's CAS on the tail, then this volatile read; the worker stores sleeping, then reads the tail
            // (isEmpty): one of the two sees the other, so a hand-over is never left behind a sleeping worker
            if (sleeping) {
                LockSupport.unpark(thread);
            }
        }
    }

    /** How many tasks the worker thread ran so far. */
    public long tasksRun() {
        return ran.sum();
    }

    /** Whether the calling thread is the work-queue thread. */
    public boolean isWorker() {
        return Thread.currentThread() == thread;
    }

    private void loop() {
        while (!closed) {
            SerialTask t = tasks.poll();
            if (t == null) {
                sleeping = true;
                if (tasks.isEmpty()) { // re-check after announcing the sleep (see defer)
                    LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                }
                sleeping = false;
                continue; // a claimed slot not yet written is taken on the next round
            }
            t.queued.set(false);
            ran.increment();
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
