package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's async events ({@code ibv_get_async_event}), already "acknowledged": events are records queued by
 * the NIC threads and taken by the event loop with {@link #poll()}. Destroying a QP, CQ or SRQ removes its pending
 * events, which is what {@code ibv_destroy_*} waiting for acks guarantees in verbs: no event is ever seen for a
 * destroyed object. Listeners (the CM) see every event synchronously on the thread that raises it.
 *
 * <p>Events are rare, so this path allocates (one record per event).
 */
public final class SoftAsyncEvents extends ReadySource implements AsyncEventSource {
    private static final Logger LOG = LoggerFactory.getLogger(SoftAsyncEvents.class);

    private final SoftDevice device;
    private final java.util.concurrent.Executor listenerExecutor;
    private final ConcurrentLinkedQueue<AsyncEvent> queue = new ConcurrentLinkedQueue<>();
    private final CopyOnWriteArrayList<Subscription> listeners = new CopyOnWriteArrayList<>();

    /** A listener and the event types it is handed. */
    private record Subscription(Consumer<AsyncEvent> listener, Set<AsyncEventType> types) {}

    SoftAsyncEvents(SoftDevice device, java.util.concurrent.Executor listenerExecutor) {
        this.device = device;
        this.listenerExecutor = listenerExecutor;
    }

    @Override
    public AsyncEvent poll() {
        return queue.poll();
    }

    @Override
    protected boolean isReady() {
        return !queue.isEmpty();
    }

    /**
     * Adds a listener that sees every event of this device. Listeners run on the fabric's event executor (one
     * thread, in the order the events were raised), never on the thread that raised the event — which may be
     * inside a QP's task — so a listener may call {@code modify} on the QP. The CM uses this for
     * {@link AsyncEventType#COMM_EST}. Listeners must not block for long.
     */
    public void addListener(Consumer<AsyncEvent> listener) {
        addListener(EnumSet.allOf(AsyncEventType.class), listener);
    }

    /**
     * Adds a listener that sees this device's events of {@code types} only, as {@link #addListener(Consumer)} says.
     * An event no listener takes is not handed to the event executor at all: each hand-off wakes its thread, and a
     * connection's teardown raises QP_LAST_WQE_REACHED on both sides, which the CM does not listen to.
     *
     * @param types the event types the listener is handed
     * @param listener called on the fabric's event executor with each event of those types
     */
    public void addListener(Set<AsyncEventType> types, Consumer<AsyncEvent> listener) {
        listeners.add(new Subscription(listener, types.isEmpty() ? EnumSet.noneOf(AsyncEventType.class)
                : EnumSet.copyOf(types)));
    }

    /**
     * Removes a listener added with either {@code addListener}.
     *
     * @param listener the listener to remove
     */
    public void removeListener(Consumer<AsyncEvent> listener) {
        listeners.removeIf(s -> s.listener() == listener);
    }

    void raise(AsyncEventType type, QueuePair qp) {
        post(new AsyncEvent(type, device, qp, null, null, 0));
    }

    void raise(AsyncEventType type, CompletionQueue cq) {
        post(new AsyncEvent(type, device, null, cq, null, 0));
    }

    void raise(AsyncEventType type, SharedReceiveQueue srq) {
        post(new AsyncEvent(type, device, null, null, srq, 0));
    }

    /** An unaffiliated device event (DEVICE_FATAL when the device goes away: the CM's DEVICE_REMOVAL). */
    void raiseDevice(AsyncEventType type) {
        post(new AsyncEvent(type, device, null, null, null, 0));
    }

    void raisePort(AsyncEventType type, int port) {
        post(new AsyncEvent(type, device, null, null, null, port));
    }

    private void post(AsyncEvent event) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: async event {}", device.name(), event.type());
        }
        queue.add(event);
        if (wanted(event.type())) {
            try {
                listenerExecutor.execute(() -> {
                    for (Subscription s : listeners) {
                        if (!s.types().contains(event.type())) {
                            continue;
                        }
                        try {
                            s.listener().accept(event);
                        } catch (RuntimeException e) {
                            LOG.warn("async event listener failed on {}", event.type(), e);
                        }
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                // the fabric is closing
            }
        }
        signalReady();
    }

    private boolean wanted(AsyncEventType type) {
        for (Subscription s : listeners) {
            if (s.types().contains(type)) {
                return true;
            }
        }
        return false;
    }

    /** Drops pending events of a destroyed object. */
    void purge(Object element) {
        queue.removeIf(e -> e.qp() == element || e.cq() == element || e.srq() == element);
    }
}
