package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.DeviceContext;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * A device's async events ({@code ibv_get_async_event}) as a {@code Flux}: port events (PORT_ACTIVE, PORT_ERR,
 * LID/PKEY/GID_CHANGE, SM_CHANGE, CLIENT_REREGISTER), DEVICE_FATAL, and the affiliated ones (QP_FATAL, QP_REQ_ERR,
 * QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, QP_LAST_WQE_REACHED, SRQ_ERR, SRQ_LIMIT_REACHED,
 * CQ_ERR) of every QP, SRQ and CQ on the device — the endpoints' and the user's own alike. Whatever the provider
 * raises arrives; which events a device raises is the device's (soft-roce: PORT_ACTIVE/ERR, DEVICE_FATAL, the QP
 * events, SRQ_LIMIT_REACHED, CQ_ERR, and GID_CHANGE when an address moves).
 *
 * <p>The events are the SPI's {@link AsyncEvent} records, copied and acknowledged by the provider before the group's
 * reader loop saw them, and given to the endpoints as before: watching changes nothing for them. Each subscription
 * watches on its own, from subscription on, through a bounded buffer of unrequested events (overflow:
 * {@link EventOverflowException} for that subscriber only). The stream completes after DEVICE_FATAL (the device is
 * gone: nothing follows) and when the group's loop ends.
 *
 * <p>Threading: subscribe from any thread; events are emitted on the loop that reads the device's events.
 */
public final class RdmaDeviceEvents {
    /** Unrequested events a subscriber may have pending before it overflows. */
    public static final int DEFAULT_BUFFER = 64;

    private RdmaDeviceEvents() {}

    /**
     * The async events of {@code device} as read by {@code group}, with the default buffer.
     *
     * @param group  the event loop group whose loops read {@code device}'s events
     * @param device a device of the group's fabric
     * @return the device's async events (hot, from subscription on)
     */
    public static Flux<AsyncEvent> of(EventLoopGroup group, DeviceContext device) {
        return of(group, device, DEFAULT_BUFFER);
    }

    /**
     * The async events of {@code device} as read by {@code group}, with a buffer of {@code buffer} unrequested events
     * per subscriber.
     *
     * @param group  the event loop group whose loops read {@code device}'s events
     * @param device a device of the group's fabric
     * @param buffer unrequested events each subscriber may have pending (at least 1)
     * @return the device's async events (hot, from subscription on)
     * @throws IllegalArgumentException when {@code buffer} is below 1
     */
    public static Flux<AsyncEvent> of(EventLoopGroup group, DeviceContext device, int buffer) {
        if (buffer < 1) {
            throw new IllegalArgumentException("buffer must be at least 1, got " + buffer);
        }
        EventLoop loop = readerOf(group, device);
        String name = "async events of " + device.device().name();
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super AsyncEvent> actual) {
                Runnable[] stop = new Runnable[1];
                LoopQueue<AsyncEvent> q = new LoopQueue<>(loop, actual, e -> true, name, buffer, () -> {
                    if (stop[0] != null) {
                        stop[0].run();
                    }
                });
                actual.onSubscribe(q);
                try {
                    loop.run(() -> {
                        if (!q.isTerminated()) {
                            stop[0] = group.watchAsyncEvents(device, e -> q.onLoop(() -> deliver(q, e)));
                        }
                    });
                } catch (RejectedExecutionException gone) {
                    actual.onComplete(); // the group has ended: no more events
                }
            }
        };
    }

    private static void deliver(LoopQueue<AsyncEvent> q, AsyncEvent e) {
        q.offer(e);
        if (e.type() == AsyncEventType.DEVICE_FATAL) {
            q.complete();
        }
    }

    /** The loop the group gives the device's async events to (the same rule as the group's). */
    private static EventLoop readerOf(EventLoopGroup group, DeviceContext device) {
        List<EventLoop> loops = group.loops();
        int i = Math.max(0, group.fabric().devices().indexOf(device));
        return loops.get(i % loops.size());
    }
}
