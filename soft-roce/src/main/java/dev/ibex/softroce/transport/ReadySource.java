package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.EventSource;

/**
 * The soft provider's side of an {@link EventSource}: level-triggered readiness that a {@link SoftPoller} can
 * test, and a way for producers on any thread to wake the poller that waits on it. Completion channels, async
 * event sources and the CM's event channels all extend it.
 *
 * <p>Producers change their state first (a volatile or atomic write) and call {@link #signalReady()} after;
 * the poller publishes that it is about to park before it re-tests {@link #isReady()}, so a wake-up is never
 * lost.
 */
public abstract class ReadySource implements EventSource {
    private volatile SoftPoller poller;

    /** Whether a reader would find something now. Called by the poller's thread; must not block or allocate. */
    protected abstract boolean isReady();

    /** Wakes the poller this source is registered with, if it waits. Any thread; cheap when nobody waits. */
    protected final void signalReady() {
        SoftPoller p = poller;
        if (p != null) {
            p.signal();
        }
    }

    final SoftPoller poller() {
        return poller;
    }

    final void poller(SoftPoller p) {
        poller = p;
    }

    /** Whether this source is registered with a poller now. */
    public final boolean isRegistered() {
        return poller != null;
    }
}
