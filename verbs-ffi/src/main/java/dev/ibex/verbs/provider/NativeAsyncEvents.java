package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.verbs.ffi.IbVerbs;
import dev.ibex.verbs.ffi.LibC;
import dev.ibex.verbs.ffi.struct.IbvAsyncEvent;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvCq;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvSrq;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's async events: {@code ibv_get_async_event} on the context's async fd (made non-blocking here)
 * until EAGAIN. Each event is copied into an {@link AsyncEvent}, its element pointer mapped back to the Java
 * QP, CQ or SRQ through the handle in the object's context field, and acknowledged at once
 * ({@code ibv_ack_async_event}) — so destroying a QP, CQ or SRQ never waits for an event the application
 * has not handled yet. Events for objects that are already gone, and event types the SPI does not know
 * ({@code IBV_EVENT_WQ_FATAL}), are acknowledged and skipped.
 *
 * <p>Confined to the event loop that polls it.
 */
final class NativeAsyncEvents implements AsyncEventSource, FdSource {
    private static final Logger LOG = LoggerFactory.getLogger(NativeAsyncEvents.class);
    private static final int KNOWN_TYPES = AsyncEventType.values().length;

    private final NativeDeviceContext device;
    private final MemorySegment event;
    private final int fd;

    NativeAsyncEvents(NativeDeviceContext device) {
        this.device = device;
        this.event = device.fabric.arena().allocate(IbvAsyncEvent.LAYOUT);
        this.fd = IbvContext.asyncFd(device.segment());
        LibC.setNonBlocking(fd);
    }

    /** How many pollers have this source registered (its fd must be out of every epoll set before it closes). */
    private final java.util.concurrent.atomic.AtomicInteger registrations = new java.util.concurrent.atomic.AtomicInteger();

    /** @throws IllegalStateException when the device was released (its fd is closed, the number may be reused) */
    @Override
    public int pollFd() {
        device.ensureOpen();
        return fd;
    }

    NativeDeviceContext device() {
        return device;
    }

    /** A poller registered the fd. */
    void attached() {
        registrations.incrementAndGet();
    }

    /** A poller let the fd go: a removed device may now be released. */
    void detached() {
        registrations.decrementAndGet();
        device.fabric.releaseIfUnused(device);
    }

    /** {@return whether no poller has the fd registered} */
    boolean unwatched() {
        return registrations.get() <= 0;
    }

    @Override
    public AsyncEvent poll() {
        device.ensureOpen();
        while (IbVerbs.getAsyncEvent(device.segment(), event)) {
            AsyncEvent copy;
            try {
                copy = copy();
            } finally {
                IbVerbs.ackAsyncEvent(event);
            }
            if (copy != null) {
                return copy;
            }
        }
        return null;
    }

    private AsyncEvent copy() {
        int code = IbvAsyncEvent.eventType(event);
        if (code < 0 || code >= KNOWN_TYPES) {
            LOG.debug("{}: skipping async event {} ({})", device.describe(), code, IbVerbs.eventTypeStr(code));
            return null;
        }
        AsyncEventType type = AsyncEventType.ofCode(code);
        HandleTable handles = device.fabric.handles();
        return switch (type.element()) {
            case QP -> {
                NativeQueuePair qp = handles.lookup(context(IbvAsyncEvent.qp(event), IbvQp.OFFSET_QP_CONTEXT),
                        NativeQueuePair.class);
                yield !ours(qp) ? skipped(type) : new AsyncEvent(type, device, qp, null, null, 0);
            }
            case CQ -> {
                NativeCompletionQueue cq = handles.lookup(context(IbvAsyncEvent.cq(event), IbvCq.OFFSET_CQ_CONTEXT),
                        NativeCompletionQueue.class);
                yield !ours(cq) ? skipped(type) : new AsyncEvent(type, device, null, cq, null, 0);
            }
            case SRQ -> {
                NativeSharedReceiveQueue srq = handles.lookup(
                        context(IbvAsyncEvent.srq(event), IbvSrq.OFFSET_SRQ_CONTEXT), NativeSharedReceiveQueue.class);
                yield !ours(srq) ? skipped(type) : new AsyncEvent(type, device, null, null, srq, 0);
            }
            case PORT -> new AsyncEvent(type, device, null, null, null, IbvAsyncEvent.portNum(event));
            case DEVICE -> {
                if (type == AsyncEventType.DEVICE_FATAL) {
                    device.markRemoved();
                }
                yield new AsyncEvent(type, device, null, null, null, 0);
            }
        };
    }

    /** The handle stored in the {@code *_context} field at {@code offset} of the object {@code element}. */
    private static long context(MemorySegment element, long offset) {
        return element.address() == 0 ? 0 : element.get(ValueLayout.JAVA_LONG, offset);
    }

    /**
     * Whether {@code r} is open in this source's fabric. Two fabrics of one process share librdmacm's device contexts
     * and so their async fds: an event read here for another fabric's object is lost to that fabric (documented).
     */
    private boolean ours(NativeResource r) {
        return r != null && r.fabric == device.fabric;
    }

    private AsyncEvent skipped(AsyncEventType type) {
        LOG.debug("{}: skipping {} for an object that is closed or belongs to another fabric", device.describe(), type);
        return null;
    }

    @Override
    public String toString() {
        return "async events of " + device.describe();
    }
}
