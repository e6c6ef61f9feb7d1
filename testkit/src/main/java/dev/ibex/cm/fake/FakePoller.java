package dev.ibex.cm.fake;

import dev.ibex.cm.spi.EventSource;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A poller with real wake-up semantics: {@link #poll} parks the calling thread until a registered source becomes
 * ready, {@link #wakeup()} is called (then the current or the next poll returns promptly) or the timeout passes.
 * Its {@code await} is the one blocking call BlockHound must allow on loop threads (not {@code poll}, which runs the
 * loop's handlers).
 */
public final class FakePoller implements Poller, ResourceTracker.Tracked {
    private record Registration(FakeSource source, Object attachment) {}

    private final FakeFabric fabric;
    private final CopyOnWriteArrayList<Registration> registrations = new CopyOnWriteArrayList<>();
    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile Thread waiter;
    private volatile boolean closed;
    private volatile long wakeups;
    /** Polls with a zero timeout: written by the polling (loop) thread only. */
    private volatile long nonWaitingPolls;

    FakePoller(FakeFabric fabric) {
        this.fabric = fabric;
        fabric.tracker.opened(this);
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.POLLER;
    }

    @Override
    public void register(EventSource source, Object attachment) {
        FakeSource s = (FakeSource) source;
        s.attach(this);
        registrations.add(new Registration(s, attachment));
        signal();
    }

    @Override
    public void deregister(EventSource source) {
        registrations.removeIf(r -> r.source == source);
        ((FakeSource) source).attach(null);
    }

    /** {@return how many sources are registered now} */
    public int registered() {
        return registrations.size();
    }

    /** {@return how many times {@link #wakeup()} was called} */
    public long wakeups() {
        return wakeups;
    }

    /** {@return how many times {@link #poll} was called with a zero timeout (a look that does not wait)} */
    public long nonWaitingPolls() {
        return nonWaitingPolls;
    }

    @Override
    public int poll(long timeoutNanos, ReadyHandler handler) {
        if (closed) {
            throw new IllegalStateException("poller is closed");
        }
        if (timeoutNanos == 0) {
            nonWaitingPolls++; // one polling thread
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            int n = 0;
            for (Registration r : registrations) {
                if (r.source.ready()) {
                    handler.ready(r.attachment);
                    n++;
                }
            }
            if (n > 0) {
                return n;
            }
            if (woken.getAndSet(false) || timeoutNanos == 0) {
                return 0;
            }
            long left = deadline - System.nanoTime();
            if (timeoutNanos > 0 && left <= 0) {
                return 0;
            }
            waiter = Thread.currentThread();
            if (!anyReady() && !woken.get()) {
                await(timeoutNanos < 0 ? -1 : left);
            }
            waiter = null;
        }
    }

    /**
     * The one blocking call of an event loop. Kept apart from {@link #poll} (which runs the loop's handlers) so
     * BlockHound can allow exactly this wait and still catch blocking calls in callbacks.
     */
    private void await(long nanos) {
        if (nanos < 0) {
            LockSupport.park(this);
        } else {
            LockSupport.parkNanos(this, nanos);
        }
    }

    private boolean anyReady() {
        for (Registration r : registrations) {
            if (r.source.ready()) {
                return true;
            }
        }
        return false;
    }

    void signal() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void wakeup() {
        wakeups++;
        woken.set(true);
        signal();
    }

    @Override
    public void close() {
        closed = true;
        registrations.clear();
        fabric.tracker.closed(this);
    }
}
