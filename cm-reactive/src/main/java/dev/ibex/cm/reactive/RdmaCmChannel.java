package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

/**
 * A CM event channel of its own ({@code rdma_create_event_channel}), read by an event loop, for users who drive
 * {@link CmId}s themselves: {@link #events()} is every {@code RDMA_CM_EVENT_*} of the ids created on it (or
 * migrated to it) as {@link RdmaCmEvent} values; {@link #events(CmId)} those of one id.
 *
 * <p><b>Copy and ack first.</b> The loop copies each event into an {@link RdmaCmEvent} and acknowledges it before any
 * subscriber sees it (the provider's {@code poll} does both), so destroying an id, its QP or the channel never waits
 * for a subscriber, however slow.
 *
 * <p><b>Back-pressure.</b> The streams are hot and multicast: a subscriber sees what happens after it subscribed.
 * Each subscriber has a bounded buffer ({@code buffer} events, default {@value #DEFAULT_BUFFER}) for events it has
 * not requested yet; when an event finds it full, that subscriber alone ends with a typed
 * {@link EventOverflowException} — nothing is dropped silently, and neither the CM, the other subscribers nor
 * teardown wait for it. Control events are few; a subscriber that requests one at a time and answers at once never
 * comes close.
 *
 * <p><b>Ids.</b> The SPI's ids are confined to the loop that reads their channel: call their methods on
 * {@link #loop()} (events are emitted there, so a subscriber may act on an event's id directly; it must not
 * block) or with {@link #onLoop}. Close the channel before its event loop group: that destroys the ids still on it
 * and completes the streams.
 *
 * <p>Threading: every method may be called from any thread; events are emitted on {@link #loop()}.
 */
public final class RdmaCmChannel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaCmChannel.class);
    /** Unrequested events a subscriber may have pending before it overflows. */
    public static final int DEFAULT_BUFFER = 256;

    private final EventLoop loop;
    private final EventChannel channel;
    private final LoopBroadcast<RdmaCmEvent> broadcast;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RdmaCmChannel(EventLoop loop, EventChannel channel, int buffer) {
        this.loop = loop;
        this.channel = channel;
        this.broadcast = new LoopBroadcast<>(loop, "CM events of " + channel, buffer);
    }

    /**
     * A channel on the group's next loop, with the default buffer per subscriber.
     *
     * @param group the event loop group; the channel is read by its {@link EventLoopGroup#next() next} loop
     * @return the open channel
     * @throws dev.ibex.cm.RdmaException when the provider cannot create the channel
     */
    public static RdmaCmChannel open(EventLoopGroup group) {
        return open(group.next(), DEFAULT_BUFFER);
    }

    /**
     * A channel read by {@code loop}.
     *
     * @param buffer unrequested events each subscriber may have pending (at least 1)
     * @param loop the loop to read the channel on
     * @return the open channel
     * @throws IllegalArgumentException when {@code buffer} is below 1
     * @throws dev.ibex.cm.RdmaException when the provider cannot create the channel
     */
    public static RdmaCmChannel open(EventLoop loop, int buffer) {
        if (buffer < 1) {
            throw new IllegalArgumentException("buffer must be at least 1, got " + buffer);
        }
        return LoopCall.call(loop, () -> {
            EventChannel ch = loop.fabric().createEventChannel();
            RdmaCmChannel c = new RdmaCmChannel(loop, ch, buffer);
            try {
                loop.watch(ch, c::read);
            } catch (RuntimeException e) {
                ch.close();
                throw e;
            }
            return c;
        });
    }

    /**
     * The loop that reads the channel and emits its events (where the ids' methods are called).
     *
     * @return the channel's loop
     */
    public EventLoop loop() {
        return loop;
    }

    /**
     * The SPI channel (confined to {@link #loop()}, except {@code close}).
     *
     * @return the provider's channel
     */
    public EventChannel channel() {
        return channel;
    }

    /**
     * {@code rdma_create_id} on this channel. From any thread (waits for the loop when called off it).
     *
     * @param portSpace the port space and with it the QP type: {@code TCP} or {@code IB} for RC, {@code UDP} or {@code
     *     IPOIB} for UD
     * @param context   the application's context, returned by {@code CmId.context()}
     * @return the new id, confined to {@link #loop()}
     * @throws IllegalStateException when the channel is closed
     * @throws dev.ibex.cm.RdmaException when the provider refuses
     */
    public CmId createId(PortSpace portSpace, Object context) {
        requireOpen();
        return LoopCall.call(loop, () -> channel.createId(portSpace, context));
    }

    /**
     * Runs {@code action} on the loop (at once when already there) and returns its result: how an id's methods are
     * called from outside the loop. Failures are rethrown as they were.
     *
     * @param <T>    the action's result type
     * @param action what to run on the loop
     * @return what {@code action} returned
     */
    public <T> T onLoop(java.util.concurrent.Callable<T> action) {
        return LoopCall.call(loop, action);
    }

    /**
     * Every event of the channel's ids, from subscription on; completes when the channel is closed.
     *
     * @return the channel's events (hot)
     */
    public Flux<RdmaCmEvent> events() {
        return broadcast.flux();
    }

    /**
     * The events of {@code id}: its own, and connection requests to it when it listens
     * ({@link RdmaCmEvent#concerns}). Other ids' events never fill this subscriber's buffer.
     *
     * @param id an id created on (or migrated to) this channel
     * @return the id's events (hot)
     */
    public Flux<RdmaCmEvent> events(CmId id) {
        return broadcast.flux(e -> e.concerns(id), "CM events of id " + id);
    }

    private static dev.ibex.cm.spi.DeviceContext deviceOf(CmId id) {
        try {
            return id == null ? null : id.device();
        } catch (RuntimeException closed) {
            return null;
        }
    }

    /** Loop thread, when the channel is ready: copy (the provider acked), then emit. */
    private void read() {
        CmEvent e;
        // a subscriber may close the channel on an event: polling a closed channel is an error (rdma-core throws)
        while (!closed.get() && (e = channel.poll()) != null) {
            RdmaCmEvent copy = RdmaCmEvent.of(e);
            LOG.debug("{}: {}", channel, copy);
            // read before the emit: a subscriber destroys the id on DEVICE_REMOVAL, as the event asks
            dev.ibex.cm.spi.DeviceContext removed = e.type() == dev.ibex.cm.spi.CmEventType.DEVICE_REMOVAL
                    ? deviceOf(e.id()) : null;
            broadcast.emit(copy);
            if (removed != null) {
                loop.deviceRemoved(removed); // so that the loop lets go of the device even if no endpoint was on it
            }
        }
    }

    /**
     * Destroys the channel and the ids still on it (their QPs first) and completes the streams after what their
     * subscribers have queued. Idempotent; from any thread.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Runnable close = () -> {
            try {
                loop.unwatch(channel);
            } finally {
                try {
                    channel.close();
                } finally {
                    broadcast.complete();
                }
            }
        };
        if (loop.terminationFuture().isDone()) {
            channel.close(); // the loop is gone: nothing more is emitted
            return;
        }
        LoopCall.run(loop, close);
    }

    private void requireOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the CM event channel " + channel + " is closed");
        }
    }

    @Override
    public String toString() {
        return "RdmaCmChannel[" + channel + " on " + loop + "]";
    }
}
