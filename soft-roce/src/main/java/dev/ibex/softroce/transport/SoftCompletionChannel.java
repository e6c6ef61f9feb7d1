package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ibv_comp_channel}: where armed CQs queue their notifications. A notification is a per-CQ counter plus a
 * channel-wide total, so queuing and taking allocate nothing and need no lock; {@link #poll()} hands out CQs
 * round-robin. Ready (for a {@link SoftPoller}) while any notification is pending.
 */
public final class SoftCompletionChannel extends ReadySource implements CompletionChannel {
    private static final SoftCompletionQueue[] NONE = {};

    private final SoftDevice device;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile SoftCompletionQueue[] cqs = NONE;
    private int cursor; // loop thread only
    private volatile boolean closed;

    SoftCompletionChannel(SoftDevice device) {
        this.device = device;
        device.tracker().opened(this);
    }

    @Override
    public CompletionQueue poll() {
        if (pending.get() == 0) {
            return null;
        }
        SoftCompletionQueue[] all = cqs;
        int n = all.length;
        for (int i = 0; i < n; i++) {
            int k = (cursor + i) % n;
            SoftCompletionQueue cq = all[k];
            int p;
            while ((p = cq.pendingEvents.get()) > 0) {
                if (cq.pendingEvents.compareAndSet(p, p - 1)) {
                    pending.decrementAndGet();
                    cursor = k + 1;
                    cq.delivered();
                    return cq;
                }
            }
        }
        return null;
    }

    @Override
    protected boolean isReady() {
        return pending.get() > 0;
    }

    void notify(SoftCompletionQueue cq) {
        cq.pendingEvents.incrementAndGet();
        pending.incrementAndGet();
        signalReady();
    }

    synchronized void attach(SoftCompletionQueue cq) {
        if (closed) {
            throw new IllegalStateException("completion channel is closed");
        }
        SoftCompletionQueue[] a = Arrays.copyOf(cqs, cqs.length + 1);
        a[a.length - 1] = cq;
        cqs = a;
    }

    synchronized void detach(SoftCompletionQueue cq) {
        SoftCompletionQueue[] a = cqs;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == cq) {
                SoftCompletionQueue[] b = new SoftCompletionQueue[a.length - 1];
                System.arraycopy(a, 0, b, 0, i);
                System.arraycopy(a, i + 1, b, i, a.length - i - 1);
                cqs = b;
                int p = cq.pendingEvents.getAndSet(0);
                pending.addAndGet(-p);
                return;
            }
        }
    }

    /** {@code ibv_destroy_comp_channel}: fails with EBUSY while CQs use it. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (cqs.length > 0) {
                throw new RdmaException("ibv_destroy_comp_channel", Errno.EBUSY,
                        cqs.length + " completion queue(s) still use the channel: destroy them first");
            }
            closed = true;
        }
        SoftPoller p = poller();
        if (p != null) {
            p.deregister(this);
        }
        device.tracker().closed(this);
    }
}
