package dev.ibex.cm.loop;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.DeviceContext;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop's devices: the {@link LoopDevice} it makes on an open device the first time an endpoint needs it, the async
 * events of the devices it reads for the group (one loop reads each device's) and of those it gives to its endpoints,
 * and a removed device's release — as soon as no endpoint of the loop uses it, not at shutdown, so that the provider
 * can let the device go.
 *
 * <p>Threading: the loop thread only.
 */
final class LoopDevices {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class); // the loop's log category

    private final EventLoop loop;
    private final EndpointTable endpoints;
    private final Map<DeviceContext, LoopDevice> byContext = new IdentityHashMap<>();
    /** The values of {@link #byContext}, indexable: the CQ spin walks them without an iterator. */
    private final List<LoopDevice> list = new ArrayList<>();
    /** Devices that went away and whose resources wait for the loop's last endpoint on them to end. */
    private final List<DeviceContext> removed = new ArrayList<>(1);
    private final List<AsyncEventSource> asyncSources = new ArrayList<>();

    LoopDevices(EventLoop loop, EndpointTable endpoints) {
        this.loop = loop;
        this.endpoints = endpoints;
    }

    /** {@return the loop's resources on {@code context}, or {@code null} when it has none yet} */
    LoopDevice get(DeviceContext context) {
        return byContext.get(context);
    }

    /** {@return new loop resources on {@code context}, which has none yet} */
    LoopDevice create(DeviceContext context) {
        LoopDevice d = new LoopDevice(loop, context);
        byContext.put(context, d);
        list.add(d);
        return d;
    }

    /** {@return the loop's devices, indexable (the list itself: the CQ spin walks it)} */
    List<LoopDevice> list() {
        return list;
    }

    /** {@return a copy of the loop's devices (for leak checks)} */
    List<LoopDevice> snapshot() {
        return new ArrayList<>(byContext.values());
    }

    /** {@code device} went away: its resources go once no endpoint uses it (see {@link EventLoop#deviceRemoved}). */
    void removed(DeviceContext device) {
        if (byContext.containsKey(device) && !removed.contains(device)) {
            removed.add(device);
        }
        releaseUnused();
    }

    /** An endpoint was unregistered: the removed devices it was the last to use are released now. */
    void endpointGone() {
        if (!removed.isEmpty()) {
            releaseUnused();
        }
    }

    /**
     * A device that went away (DEVICE_FATAL, or the CM's DEVICE_REMOVAL): once no endpoint of this loop uses it any
     * more (they end on the event), its loop resources (SRQ, CQs, completion channel, buffers, PD) are released.
     */
    private void releaseUnused() {
        for (Iterator<DeviceContext> it = removed.iterator(); it.hasNext(); ) {
            DeviceContext d = it.next();
            boolean used = false;
            for (LoopEndpoint ep : endpoints.snapshot()) {
                used |= ep.device() == d;
            }
            if (!used) {
                it.remove();
                LoopDevice ld = byContext.remove(d);
                list.remove(ld);
                if (ld != null) {
                    LOG.debug("{}: releasing the resources on removed device {}", loop, d.device().name());
                    ld.close();
                }
            }
        }
    }

    /** Reads {@code source} on this loop: its events go to the group, which routes them to the loops concerned. */
    void readAsync(AsyncEventSource source) {
        asyncSources.add(source);
        loop.poller().register(source, (EventLoop.Source) () -> {
            AsyncEvent ev;
            while ((ev = source.poll()) != null) {
                loop.group().route(ev);
            }
        });
    }

    /** Stops reading {@code source} (its device was removed). */
    void stopReadingAsync(AsyncEventSource source) {
        if (asyncSources.remove(source)) {
            loop.quietly(() -> loop.poller().deregister(source));
        }
    }

    /** Gives a port, device, CQ or SRQ event to every endpoint of this loop on the event's device. */
    void broadcast(AsyncEvent e) {
        for (LoopEndpoint ep : endpoints.snapshot()) {
            if (ep.device() == e.device()) {
                try {
                    ep.onAsyncEvent(e);
                } catch (Throwable t) {
                    loop.reportUncaught(t);
                }
            }
        }
        if (e.type() == AsyncEventType.DEVICE_FATAL) {
            loop.deviceRemoved(e.device());
        }
    }

    /** The loop ends: every device's resources are closed, and the async sources it read let go. */
    void close() {
        for (LoopDevice d : byContext.values()) {
            d.close();
        }
        byContext.clear();
        list.clear();
        for (AsyncEventSource s : asyncSources) {
            loop.quietly(() -> loop.poller().deregister(s));
        }
    }
}
