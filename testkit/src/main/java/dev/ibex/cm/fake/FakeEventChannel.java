package dev.ibex.cm.fake;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A CM event channel: a queue the fake's ids (or the test) put events into. */
public final class FakeEventChannel extends FakeSource implements EventChannel, ResourceTracker.Tracked {
    private final FakeFabric fabric;
    private final ConcurrentLinkedQueue<CmEvent> queue = new ConcurrentLinkedQueue<>();
    final Set<FakeCmId> ids = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    FakeEventChannel(FakeFabric fabric) {
        this.fabric = fabric;
        fabric.tracker.opened(this);
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.EVENT_CHANNEL;
    }

    @Override
    public CmId createId(PortSpace portSpace, Object context) {
        check();
        return new FakeCmId(fabric, this, portSpace, context);
    }

    /**
     * A new id in the state of a received connection request (scripted passive tests), bound to the fabric's first
     * device with the last device as its peer.
     *
     * @param portSpace the id's port space
     * @return the new id, on this channel
     * @throws IllegalStateException if the channel is closed
     */
    public FakeCmId requestId(PortSpace portSpace) {
        check();
        FakeCmId id = new FakeCmId(fabric, this, portSpace, null);
        id.requested(fabric.device(0));
        return id;
    }

    @Override
    public CmEvent poll() {
        check();
        return queue.poll();
    }

    @Override
    boolean ready() {
        return !queue.isEmpty();
    }

    /**
     * Queues an event (as the provider would after copying and acking it) and wakes the poller.
     *
     * @param e the event to deliver
     */
    public void inject(CmEvent e) {
        queue.add(e);
        signal();
    }

    /**
     * Queues an event of {@code type} for {@code id}.
     *
     * @param id the id the event is for
     * @param type the event type
     * @param status the event's status: 0, a negative errno, or a CM reject reason for {@code REJECTED}
     * @param privateData the private data the event carries, or {@code null}
     */
    public void inject(CmId id, CmEventType type, int status, byte[] privateData) {
        inject(new CmEvent(type, id, null, status, privateData, null, null, null));
    }

    /** {@return how many events wait to be taken by the loop} */
    public int pending() {
        return queue.size();
    }

    /** {@return a snapshot of the ids living on this channel} */
    public List<FakeCmId> ids() {
        return new ArrayList<>(ids);
    }

    /** rdma_migrate_id moves the id's queued events with it. */
    void moveEvents(FakeCmId id, FakeEventChannel to) {
        List<CmEvent> moved = new ArrayList<>();
        queue.removeIf(e -> {
            if (e.id() == id && e.type() != CmEventType.CONNECT_REQUEST) {
                moved.add(e);
                return true;
            }
            return false;
        });
        moved.forEach(to::inject);
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("event channel is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (FakeCmId id : new ArrayList<>(ids)) {
            id.close();
        }
        closed = true;
        fabric.tracker.closed(this);
    }
}
