package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.verbs.ffi.AsyncEvents;
import dev.ibex.verbs.ffi.EnumStrings;
import dev.ibex.verbs.ffi.struct.IbvAsyncEvent;
import dev.ibex.verbs.ffi.struct.IbvCq;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvSrq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The async fd of one device context, shared by every fabric of the process. librdmacm opens each device once per
 * process, so the {@link NativeAsyncEvents} of two fabrics read one kernel queue, and the kernel hands each event to
 * whichever reads first. Whoever reads therefore drains the fd for all of them and routes each event where it
 * belongs: an event of a QP, CQ or SRQ to the fabric that made the object, a port or device event to every fabric
 * on the device. Each member keeps its events in its own inbox, in the kernel's order, and is woken for them
 * through its inbox eventfd.
 *
 * <p>One reader at a time ({@code tryLock}): a member that finds another reading returns what its inbox holds;
 * the reader routes the rest to it and wakes it. No thread ever waits for the lock, so an event loop never blocks.
 */
final class SharedAsyncFd {
    private static final Logger LOG = LoggerFactory.getLogger(SharedAsyncFd.class);
    private static final int KNOWN_TYPES = AsyncEventType.values().length;
    /** Context address → its shared fd; guarded by itself. */
    private static final Map<Long, SharedAsyncFd> BY_CONTEXT = new HashMap<>();

    private final long address;
    private final MemorySegment context;
    /** The {@code struct ibv_async_event} the reader fills; used under {@link #reading} only. */
    private final MemorySegment event = Arena.ofAuto().allocate(IbvAsyncEvent.LAYOUT);
    private final ReentrantLock reading = new ReentrantLock();
    private final List<NativeAsyncEvents> members = new CopyOnWriteArrayList<>();

    private SharedAsyncFd(MemorySegment context) {
        this.address = context.address();
        this.context = context;
    }

    /** Adds {@code member}, the async events of {@code context} in one fabric; returns the context's shared fd. */
    static SharedAsyncFd join(MemorySegment context, NativeAsyncEvents member) {
        synchronized (BY_CONTEXT) {
            SharedAsyncFd shared = BY_CONTEXT.computeIfAbsent(context.address(), a -> new SharedAsyncFd(context));
            shared.members.add(member);
            return shared;
        }
    }

    /** Removes {@code member} (its device context closed); the last one to leave forgets the context. */
    void leave(NativeAsyncEvents member) {
        synchronized (BY_CONTEXT) {
            members.remove(member);
            if (members.isEmpty()) {
                BY_CONTEXT.remove(address, this);
            }
        }
    }

    /**
     * Reads every pending event into the members' inboxes, unless another thread is reading (it routes ours too).
     * Never blocks: the fd is non-blocking and the lock is only tried.
     *
     * @param reader the member whose poll drains the fd (it is not woken for its own events)
     */
    void drain(NativeAsyncEvents reader) {
        if (!reading.tryLock()) {
            return;
        }
        try {
            while (AsyncEvents.getAsyncEvent(context, event)) {
                try {
                    route(reader);
                } finally {
                    AsyncEvents.ackAsyncEvent(event);
                }
            }
        } finally {
            reading.unlock();
        }
    }

    private void route(NativeAsyncEvents reader) {
        int code = IbvAsyncEvent.eventType(event);
        if (code < 0 || code >= KNOWN_TYPES) {
            LOG.debug("{}: skipping async event {} ({})", reader, code, EnumStrings.eventTypeStr(code));
            return;
        }
        AsyncEventType type = AsyncEventType.ofCode(code);
        HandleTable handles = reader.device().fabric.handles(); // process-wide: finds any fabric's object
        switch (type.element()) {
            case QP -> deliver(type, handles.lookup(context(IbvAsyncEvent.qp(event), IbvQp.OFFSET_QP_CONTEXT),
                    NativeQueuePair.class), reader);
            case CQ -> deliver(type, handles.lookup(context(IbvAsyncEvent.cq(event), IbvCq.OFFSET_CQ_CONTEXT),
                    NativeCompletionQueue.class), reader);
            case SRQ -> deliver(type, handles.lookup(context(IbvAsyncEvent.srq(event), IbvSrq.OFFSET_SRQ_CONTEXT),
                    NativeSharedReceiveQueue.class), reader);
            case PORT, DEVICE -> {
                int port = type.element() == AsyncEventType.Element.PORT ? IbvAsyncEvent.portNum(event) : 0;
                for (NativeAsyncEvents m : members) {
                    m.offer(new AsyncEvent(type, m.device(), null, null, null, port), reader);
                }
            }
        }
    }

    /** Hands an event of a QP, CQ or SRQ to the fabric that made {@code r}. */
    private void deliver(AsyncEventType type, NativeResource r, NativeAsyncEvents reader) {
        NativeAsyncEvents to = ownerOf(r, type, reader);
        if (to != null) {
            to.offer(new AsyncEvent(type, to.device(), r instanceof NativeQueuePair qp ? qp : null,
                    r instanceof NativeCompletionQueue cq ? cq : null,
                    r instanceof NativeSharedReceiveQueue srq ? srq : null, 0), reader);
        }
    }

    /** The member of the fabric that made {@code r}, or null (skipped) when it is closed or its fabric left. */
    private NativeAsyncEvents ownerOf(NativeResource r, AsyncEventType type, NativeAsyncEvents reader) {
        if (r != null) {
            for (NativeAsyncEvents m : members) {
                if (m.device().fabric == r.fabric) {
                    return m;
                }
            }
        }
        LOG.debug("{}: skipping {} for an object that is closed", reader, type);
        return null;
    }

    /** The handle stored in the {@code *_context} field at {@code offset} of the object {@code element}. */
    private static long context(MemorySegment element, long offset) {
        return element.address() == 0 ? 0 : element.get(ValueLayout.JAVA_LONG, offset);
    }
}
