package dev.ibex.softroce.net;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread a port's delay and reorder faults release their datagrams from, started by the first fault that
 * needs it.
 *
 * <p>Threading: {@link #schedule} and {@link #close} may be called from any thread (one lock); the tasks run on the
 * timer's one daemon thread.
 */
final class FaultTimer {
    /** The port's logger, so the timer's lines keep the category they always had. */
    private static final Logger LOG = LoggerFactory.getLogger(SoftPort.class);
    private static final long JOIN_MILLIS = 5_000;

    private final SoftPort port;
    private final String name;
    private final Object lock = new Object();
    private boolean closed;
    private ScheduledThreadPoolExecutor timer;
    private Thread timerThread;

    FaultTimer(SoftPort port, String name) {
        this.port = port;
        this.name = name;
    }

    /** Runs {@code task} after {@code delayNanos}; nothing once the port is closed. */
    void schedule(Runnable task, long delayNanos) {
        synchronized (lock) {
            if (closed || !port.isOpen()) {
                return;
            }
            if (timer == null) {
                timer = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread thread = Thread.ofPlatform().daemon(true).name("ibex-softroce-faults-" + name).unstarted(r);
                    synchronized (lock) {
                        timerThread = thread;
                    }
                    return thread;
                });
                timer.setRemoveOnCancelPolicy(true);
            }
            timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Stops the timer and waits (bounded) for its thread, unless called on it. Idempotent. */
    void close() {
        ScheduledThreadPoolExecutor t;
        Thread worker;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            t = timer;
            worker = timerThread;
        }
        if (t != null && worker == Thread.currentThread()) {
            t.shutdown(); // closed by a handler running on the fault timer: it ends after this task
        } else if (t != null) {
            t.shutdownNow();
            try {
                if (!t.awaitTermination(JOIN_MILLIS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("port {}: fault timer did not stop", name);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (worker != null) {
                port.joinThread(worker); // terminated executors may still have a worker on its way out
            }
        }
    }
}
