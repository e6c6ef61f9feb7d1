package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.verbs.ffi.EventFd;
import dev.ibex.verbs.ffi.LibC;
import dev.ibex.verbs.ffi.struct.IbvContext;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Every fabric of the process reads the same fd (librdmacm opens each device once), so reading goes through
 * {@link SharedAsyncFd}: whichever fabric reads routes each event to the fabric it belongs to, into that fabric's
 * inbox here, and signals the inbox eventfd, which the pollers watch next to the async fd. A source is ready when
 * either is readable.
 *
 * <p>Confined to the event loop that polls it.
 */
final class NativeAsyncEvents implements AsyncEventSource, FdSource {
    private static final Logger LOG = LoggerFactory.getLogger(NativeAsyncEvents.class);
    /** Events an inbox holds for a fabric that does not poll them; beyond it the newest are dropped, logged. */
    static final int INBOX_LIMIT = 4096;

    private final NativeDeviceContext device;
    private final int fd;
    private final SharedAsyncFd shared;
    private final EventFd inboxSignal;
    private final ConcurrentLinkedQueue<AsyncEvent> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inboxSize = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();

    NativeAsyncEvents(NativeDeviceContext device) {
        this.device = device;
        this.fd = IbvContext.asyncFd(device.segment());
        LibC.setNonBlocking(fd);
        this.inboxSignal = EventFd.create();
        this.shared = SharedAsyncFd.join(device.segment(), this);
    }

    /** How many pollers have this source registered (its fd must be out of every epoll set before it closes). */
    private final AtomicInteger registrations = new AtomicInteger();

    /** @throws IllegalStateException when the device was released (its fd is closed, the number may be reused) */
    @Override
    public int pollFd() {
        device.ensureOpen();
        return fd;
    }

    /** The inbox eventfd: readable while another fabric's read left events here. */
    @Override
    public int wakeFd() {
        device.ensureOpen();
        return inboxSignal.fd();
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
        inboxSignal.drain(); // before looking: an event routed here after the look signals again
        shared.drain(this);
        AsyncEvent e = inbox.poll();
        if (e == null) {
            return null;
        }
        inboxSize.decrementAndGet();
        if (e.type() == AsyncEventType.DEVICE_FATAL) {
            device.markRemoved();
        }
        return e;
    }

    /**
     * An event for this fabric, read by {@code reader} (any thread, under the shared fd's read lock). Another
     * fabric's read wakes this one's pollers.
     */
    void offer(AsyncEvent e, NativeAsyncEvents reader) {
        if (inboxSize.incrementAndGet() > INBOX_LIMIT) {
            inboxSize.decrementAndGet();
            if (dropped.getAndIncrement() == 0) {
                LOG.warn("{}: {} async events are waiting unread; dropping {} and any further ones until they are "
                        + "read (does this fabric poll its device's async events?)", this, INBOX_LIMIT, e.type());
            }
            return;
        }
        inbox.add(e);
        if (reader != this) {
            try {
                inboxSignal.signal();
            } catch (IllegalStateException closed) {
                // this fabric's device context closed meanwhile: nobody will read the inbox
            }
        }
    }

    /** The device context closed: leaves the shared fd; what the inbox held is dropped with it. */
    void close() {
        shared.leave(this);
        inboxSignal.close();
        inbox.clear();
    }

    @Override
    public String toString() {
        return "async events of " + device.describe();
    }
}
