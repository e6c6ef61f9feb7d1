package dev.ibex.samples.manual;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.PortSpace;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * librdmacm's synchronous ids on the SPI, as the manual's chapter 9 programs use them ({@code rdma_create_ep},
 * {@code rdma_get_request}, a blocking {@code rdma_connect}/{@code rdma_accept}): one event channel whose events
 * the caller waits for, id by id, in the order the C program does. Events of other ids that arrive meanwhile wait in
 * a queue for their turn.
 *
 * <p>Threading: confined to the program's main thread, like the ids it makes; {@link #close()} too.
 */
final class SyncCm implements AutoCloseable {
    private final EventChannel channel;
    private final Poller poller;
    private final Deadline deadline;
    private final ArrayDeque<CmEvent> early = new ArrayDeque<>();

    SyncCm(Fabric fabric, Deadline deadline) {
        this.deadline = deadline;
        this.channel = fabric.createEventChannel();
        this.poller = fabric.createPoller();
        poller.register(channel, channel);
    }

    /** {@code rdma_create_id} on this channel. */
    CmId createId(PortSpace space) {
        return channel.createId(space, null);
    }

    /**
     * The next event of {@code id} (its own, or a connection request to it), waiting until the run's deadline.
     *
     * @throws Deadline.Expired when the deadline passes first
     */
    CmEvent next(CmId id) {
        for (Iterator<CmEvent> it = early.iterator(); it.hasNext(); ) {
            CmEvent e = it.next();
            if (concerns(e, id)) {
                it.remove();
                return e;
            }
        }
        while (true) {
            CmEvent e = channel.poll();
            if (e == null) {
                poller.poll(deadline.waitNanos(), a -> { });
                continue;
            }
            if (concerns(e, id)) {
                return e;
            }
            early.add(e);
        }
    }

    /** A pending event of any id, or {@code null} (never waits): what a C program's CM thread would print. */
    CmEvent poll() {
        CmEvent e = early.poll();
        return e != null ? e : channel.poll();
    }

    /**
     * The next event of {@code id}, which must be {@code type}; otherwise the C programs' {@code get_cm_event} line
     * ({@code event RDMA_CM_EVENT_X, status N}) is the exception's message.
     */
    CmEvent expect(CmId id, CmEventType type) {
        CmEvent e = next(id);
        if (e.type() != type) {
            throw new Unexpected(e);
        }
        return e;
    }

    private static boolean concerns(CmEvent e, CmId id) {
        return e.id() == id || e.listenId() == id;
    }

    /** {@code rdma_event_str}. */
    static String name(CmEventType type) {
        return "RDMA_CM_EVENT_" + type.name();
    }

    @Override
    public void close() {
        poller.deregister(channel);
        channel.close();
        poller.close();
    }

    /** An event other than the one the program waited for. */
    static final class Unexpected extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient CmEvent event;

        Unexpected(CmEvent event) {
            super("event " + name(event.type()) + ", status " + event.status(), null, false, false);
            this.event = event;
        }

        CmEvent event() {
            return event;
        }
    }
}
