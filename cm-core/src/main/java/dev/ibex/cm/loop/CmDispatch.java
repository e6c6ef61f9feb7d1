package dev.ibex.cm.loop;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM events of a loop's channel, each to the endpoint its id belongs to (a {@code CONNECT_REQUEST} to its
 * listener's): on this loop, or as a task on the loop the id moved to while its event was queued here. A request
 * for a listener that is gone is rejected; other events for an id without endpoint are dropped. After a
 * {@code DEVICE_REMOVAL} has reached its endpoint the loop lets go of the device.
 *
 * <p>Threading: the loop thread only (the poller calls it when the channel is ready).
 */
final class CmDispatch implements EventLoop.Source {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class); // the loop's log category

    private final EventLoop loop;
    private final EventChannel channel;

    CmDispatch(EventLoop loop, EventChannel channel) {
        this.loop = loop;
        this.channel = channel;
    }

    @Override
    public void onReady() {
        CmEvent e;
        while ((e = channel.poll()) != null) {
            dispatch(e);
        }
    }

    private void dispatch(CmEvent e) {
        DeviceContext removed = e.type() == CmEventType.DEVICE_REMOVAL ? deviceOf(e.id()) : null;
        dispatchToEndpoint(e);
        if (removed != null) {
            loop.deviceRemoved(removed); // after the endpoint ended on the event, so that its resources can go at once
        }
    }

    private static DeviceContext deviceOf(CmId id) {
        try {
            return id == null ? null : id.device();
        } catch (RuntimeException closed) {
            return null;
        }
    }

    private void dispatchToEndpoint(CmEvent e) {
        CmId target = e.type() == CmEventType.CONNECT_REQUEST ? e.listenId() : e.id();
        Object context = target == null ? null : target.context();
        if (context instanceof LoopEndpoint ep) {
            EventLoop owner = ep.loop();
            if (owner == loop) {
                try {
                    ep.onCmEvent(e);
                } catch (Throwable t) {
                    loop.reportUncaught(t);
                }
            } else {
                owner.execute(() -> ep.onCmEvent(e)); // the id moved loops while its event was queued here
            }
        } else if (e.type() == CmEventType.CONNECT_REQUEST) {
            LOG.debug("rejecting a connection request for a listener that is gone");
            EventLoop.rejectStray(e.id());
        } else {
            LOG.debug("dropping {} for an id without endpoint", e);
        }
    }
}
