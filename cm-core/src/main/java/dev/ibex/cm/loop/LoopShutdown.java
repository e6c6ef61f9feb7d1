package dev.ibex.cm.loop;

import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.EventSource;
import dev.ibex.cm.spi.Poller;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop's graceful shutdown ({@link EventLoop#shutdown}): its endpoints close, draining, until the group's
 * {@link LoopOptions#closeTimeout()}; those still open then are torn down; once none is left, what the loop owned is
 * released (its devices, the sources it polled, its CM channel and poller). The loop keeps its phase; this class
 * keeps the deadline and the sequence.
 *
 * <p>Threading: the loop thread only ({@link #begin} runs as a task, the rest in the loop's turns and its end).
 */
final class LoopShutdown {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class); // the loop's log category

    private final EventLoop loop;
    private final EndpointTable endpoints;
    private final LoopDevices devices;
    private final List<EventSource> watched;
    private final Poller poller;
    private final EventChannel cmChannel;
    private long deadline;

    LoopShutdown(EventLoop loop, EndpointTable endpoints, LoopDevices devices, List<EventSource> watched,
            Poller poller, EventChannel cmChannel) {
        this.loop = loop;
        this.endpoints = endpoints;
        this.devices = devices;
        this.watched = watched;
        this.poller = poller;
        this.cmChannel = cmChannel;
    }

    /** Sets the deadline and starts closing every endpoint (the loop has entered SHUTTING_DOWN). */
    void begin() {
        deadline = System.nanoTime() + loop.options().closeTimeout().toNanos();
        for (LoopEndpoint ep : endpoints.snapshot()) {
            loop.guarded(ep::close);
        }
    }

    /** {@return whether no endpoint is left; past the deadline those left are torn down first} */
    boolean done() {
        if (endpoints.size() == 0) {
            return true;
        }
        if (System.nanoTime() - deadline >= 0) {
            LOG.warn("{}: {} endpoints did not close within {}; tearing them down", loop, endpoints.size(),
                    loop.options().closeTimeout());
            for (LoopEndpoint ep : endpoints.snapshot()) {
                loop.guarded(ep::abort);
            }
            return true;
        }
        return false;
    }

    /** {@return the wait {@code timeout} (-1: none) cut to the time left before the deadline, at least 1 ns} */
    long clamp(long timeout) {
        long left = Math.max(1, deadline - System.nanoTime());
        return timeout < 0 ? left : Math.min(timeout, left);
    }

    /** Releases what the loop owned: devices, the watched sources' registrations, the CM channel, the poller. */
    void release() {
        devices.close();
        for (EventSource s : watched) { // their owners close them; the poller must let go first
            loop.quietly(() -> poller.deregister(s));
        }
        watched.clear();
        loop.quietly(() -> poller.deregister(cmChannel));
        loop.quietly(cmChannel::close);
        loop.quietly(poller::close);
    }
}
