package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.softroce.transport.ReadySource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

/**
 * A CM event channel of the soft provider: a queue of events already copied into records. {@link #poll()} never
 * blocks; a {@link dev.ibex.softroce.transport.SoftPoller} reports it ready while events wait (level-triggered).
 */
public final class SoftEventChannel extends ReadySource implements EventChannel, ResourceTracker.Tracked {
    private final RdmaCm service;
    private final ArrayDeque<CmEvent> queue = new ArrayDeque<>();
    private volatile boolean closed;

    SoftEventChannel(RdmaCm service) {
        this.service = service;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.EVENT_CHANNEL;
    }

    @Override
    public CmId createId(PortSpace portSpace, Object context) {
        if (portSpace == null) {
            throw new IllegalArgumentException("portSpace is required");
        }
        if (closed) {
            throw new IllegalStateException("the event channel is closed");
        }
        return service.createId(this, portSpace, context);
    }

    @Override
    public CmEvent poll() {
        CmEvent e;
        synchronized (queue) {
            e = queue.poll();
        }
        return e == null ? null : service.delivered(e);
    }

    @Override
    protected boolean isReady() {
        synchronized (queue) {
            return !queue.isEmpty();
        }
    }

    /** Events waiting. */
    public int pending() {
        synchronized (queue) {
            return queue.size();
        }
    }

    void enqueue(CmEvent e) {
        synchronized (queue) {
            queue.add(e);
        }
        signalReady();
    }

    void enqueueAll(List<CmEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        synchronized (queue) {
            queue.addAll(events);
        }
        signalReady();
    }

    /** The waiting events, in order (a copy). */
    List<CmEvent> snapshot() {
        synchronized (queue) {
            return new ArrayList<>(queue);
        }
    }

    /** Removes and returns the waiting events matching {@code p}, in order. */
    List<CmEvent> remove(Predicate<CmEvent> p) {
        List<CmEvent> out = new ArrayList<>();
        synchronized (queue) {
            for (Iterator<CmEvent> it = queue.iterator(); it.hasNext();) {
                CmEvent e = it.next();
                if (p.test(e)) {
                    it.remove();
                    out.add(e);
                }
            }
        }
        return out;
    }

    RdmaCm service() {
        return service;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        service.closeChannel(this);
        synchronized (queue) {
            queue.clear();
        }
        service.tracker().closed(this);
    }

    @Override
    public String toString() {
        return "SoftEventChannel[" + pending() + " pending]";
    }
}
