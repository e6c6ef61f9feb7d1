package dev.ibex.cm.endpoint;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.endpoint.Exposure.End;
import dev.ibex.cm.endpoint.Exposure.Mode;
import dev.ibex.cm.endpoint.Exposure.State;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.loop.Window;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.MemoryRegion;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection's {@link Exposure}s: creates them (a BIND_MW work request, or a registration), ends them (LOCAL_INV,
 * the peer's SEND_WITH_INV, teardown) and reports each step to the connection's handler; the transitions are the
 * table in {@link Exposure}. Loop-confined, except {@link #revoke}, which hands over to the loop.
 */
final class Exposures {
    private static final Logger LOG = LoggerFactory.getLogger(Exposures.class);

    private final Connection connection;
    /** Every exposure that has not ended, by rkey (the peer's SEND_WITH_INV names it by its key). */
    private final Map<Integer, Exposure> live = new HashMap<>();

    Exposures(Connection connection) {
        this.connection = connection;
    }

    Connection connection() {
        return connection;
    }

    int live() {
        return live.size();
    }

    /** The mode {@code asked} becomes on {@code d}; refuses one the device cannot do safely. */
    static Mode resolve(Mode asked, LoopDevice d) {
        boolean windows = d.attributes().supportsMemoryWindows();
        boolean bounded = windows && d.context().enforcesWindowBounds();
        String name = d.context().device().name();
        return switch (asked) {
            case AUTO -> bounded ? Mode.WINDOW : windows ? Mode.WINDOW_OVER_REGION : Mode.REGION;
            case WINDOW -> {
                if (!bounded) {
                    throw new RdmaException("ibv_alloc_mw", Errno.ENOTSUP, name + (windows
                            ? " does not confine a memory window to its own bytes (it checks only the region under it):"
                                    + " a window over the pool would expose the whole slab; use WINDOW_OVER_REGION"
                            : " has no memory windows; use REGION"));
                }
                yield Mode.WINDOW;
            }
            case WINDOW_OVER_REGION -> {
                if (!windows) {
                    throw new RdmaException("ibv_alloc_mw", Errno.ENOTSUP, name + " has no memory windows; use REGION");
                }
                yield Mode.WINDOW_OVER_REGION;
            }
            case REGION -> Mode.REGION;
        };
    }

    /** Starts exposing {@code buffer[offset, offset + length)}; the outcome is reported with {@code attachment}. */
    Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, Mode asked, long attachment) {
        return expose(buffer, offset, length, rights, asked, attachment, false);
    }

    /**
     * Exposes {@code buffer[offset, offset + length)} READ-only for a rendezvous ({@link Rendezvous}): its bind takes a
     * fragment slot and its steps go to the rendezvous, not to the application's handler ({@code id}: the message).
     */
    Exposure exposeForRendezvous(Buffer buffer, int offset, int length, int id) {
        return expose(buffer, offset, length, Set.of(RemoteAccess.READ), Mode.AUTO, id, true);
    }

    private Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, Mode asked,
            long attachment, boolean internal) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(asked, "mode");
        int access = RemoteAccess.mask(rights);
        if (length <= 0 || offset < 0 || offset > buffer.capacity() - length) {
            throw new IllegalArgumentException("exposed range [" + offset + ", " + ((long) offset + length)
                    + ") must be non-empty and lie inside the " + buffer.capacity() + "-byte buffer");
        }
        LoopDevice d = connection.loopDevice();
        DeviceAttributes attrs = d.attributes();
        if ((access & Access.REMOTE_ATOMIC.bit()) != 0 && !attrs.supportsAtomics()) {
            throw new RdmaException("ibv_bind_mw", Errno.ENOTSUP, d.context().device().name()
                    + " does not support atomic operations (atomic_cap is NONE)");
        }
        if ((buffer.region().access() & Access.LOCAL_WRITE.bit()) == 0 && (access & ~Access.REMOTE_READ.bit()) != 0) {
            throw new IllegalArgumentException("the pool is registered without LOCAL_WRITE: only READ can be exposed");
        }
        Mode mode = resolve(asked, d);
        SendQueue sq = connection.sq;
        if (mode != Mode.REGION && (internal ? !sq.fragmentSlotFree() : sq.writableSlots() == 0)) {
            throw new IllegalStateException("the send queue is full (" + sq.capacity() + " operations outstanding): "
                    + "wait for onWritabilityChanged(true) or check writableSlots()");
        }
        Exposure e = new Exposure(this, buffer, offset, length, access, mode, attachment);
        e.internal = internal;
        long addr = buffer.address() + offset;
        switch (mode) {
            case REGION -> {
                e.region = register(d, buffer, offset, length, access | Access.LOCAL_WRITE.bit());
                e.rkey = e.region.rkey();
                buffer.addExposure(e);
                live.put(e.rkey, e);
                // "bound" on a later turn, like a window's bind completion: the caller has not got the exposure yet
                connection.loop().execute(() -> completed(Operation.BIND_MW, e, null));
                return e;
            }
            case WINDOW_OVER_REGION -> e.region = register(d, buffer, offset, length,
                    Access.LOCAL_WRITE.bit() | Access.MW_BIND.bit());
            default -> { }
        }
        try {
            e.window = d.takeWindow();
            e.rkey = e.window.nextRkey();
            MemoryRegion mr = e.region != null ? e.region : buffer.region();
            int i = sq.beginLocal(Operation.BIND_MW, e, internal);
            sq.batch().bindMw(i, e.window.mw(), e.rkey, mr, addr, length, access);
            sq.commitLocal(i);
        } catch (RuntimeException ex) {
            if (e.window != null) {
                d.returnWindow(e.window);
            }
            deregister(e);
            throw ex;
        }
        buffer.addExposure(e);
        live.put(e.rkey, e);
        return e;
    }

    private static MemoryRegion register(LoopDevice d, Buffer buffer, int offset, int length, int access) {
        Set<Access> flags = EnumSet.noneOf(Access.class);
        for (Access a : Access.values()) {
            if ((access & a.bit()) != 0) {
                flags.add(a);
            }
        }
        return d.pd().registerMemory(buffer.segment().asSlice(offset, length), flags);
    }

    /** Any thread: ends {@code e} with {@link End#REVOKED}. */
    void revoke(Exposure e) {
        try {
            connection.loop().run(() -> end(e, End.REVOKED));
        } catch (RejectedExecutionException gone) {
            // the loop is gone and took the connection (and the exposure) with it
        }
    }

    /** Loop thread: the application revoked {@code e}, or its buffer was released. */
    void end(Exposure e, End why) {
        switch (e.state) {
            case BINDING -> {
                if (e.pendingEnd == null) {
                    e.pendingEnd = why;
                }
            }
            case ACTIVE -> invalidate(e, why);
            case REVOKING, ENDED -> { }
        }
    }

    /** Takes the key back: LOCAL_INV on a live connection, at once where no request can arrive any more. */
    private void invalidate(Exposure e, End why) {
        if (e.mode() == Mode.REGION) {
            finish(e, why, false); // deregistration is synchronous: once it returns the key is dead
            return;
        }
        SendQueue sq = connection.sq;
        if (!connection.acceptsRequests() || sq == null) {
            finish(e, why, true); // the QP is in error or gone: nothing reaches the window; it is deallocated
            return;
        }
        e.state = State.REVOKING;
        e.endingFor = why;
        try {
            int i = sq.beginLocal(Operation.LOCAL_INV, e);
            sq.batch().invalidateRkey(i, e.rkey);
            sq.commitLocal(i);
        } catch (IllegalStateException full) {
            // no slot for the LOCAL_INV: deallocating the window invalidates it as surely (a system call, not a WR)
            finish(e, why, true);
        }
    }

    /** A BIND_MW or LOCAL_INV of {@code e} completed ({@code error == null}) or failed. */
    void completed(Operation op, Exposure e, RdmaException error) {
        if (op == Operation.BIND_MW) {
            if (e.state != State.BINDING) {
                return;
            }
            if (error != null) {
                e.state = State.ENDED;
                e.end = End.FAILED;
                release(e, true);
                if (e.internal) {
                    ended(e);
                } else {
                    bindFailed(e.attachment, error);
                }
                return;
            }
            e.state = State.ACTIVE;
            if (!e.internal) {
                bound(e.attachment);
            }
            if (e.pendingEnd != null && e.state == State.ACTIVE) {
                invalidate(e, e.pendingEnd);
            }
        } else if (e.state == State.REVOKING) {
            if (error != null && !(error instanceof WorkCompletionException w && w.isFlush())) {
                LOG.warn("{}: LOCAL_INV of {} failed: {}", connection, e, error.getMessage());
            }
            finish(e, e.endingFor, error != null);
        }
    }

    /** The peer's SEND_WITH_INV invalidated {@code rkey} (already done by the device when this runs). */
    void peerInvalidated(int rkey) {
        Exposure e = live.get(rkey);
        if (e != null && e.state == State.ACTIVE && e.mode() != Mode.REGION) {
            finish(e, End.INVALIDATED, false); // the window is free again
        }
    }

    /** Teardown: the QP is destroyed, so no window can be reached any more; every exposure ends. */
    void closeAll() {
        for (Exposure e : new ArrayList<>(live.values())) {
            if (e.state == State.BINDING) { // its bind was never reported: report it flushed
                e.state = State.ENDED;
                e.end = End.FAILED;
                release(e, true);
                if (e.internal) {
                    ended(e);
                    continue;
                }
                bindFailed(e.attachment, new WorkCompletionException(Operation.BIND_MW,
                        dev.ibex.cm.spi.WcStatus.WR_FLUSH_ERR, 0));
            } else if (e.state != State.ENDED) {
                finish(e, e.state == State.REVOKING ? e.endingFor : End.CLOSED, true);
            }
        }
    }

    private void finish(Exposure e, End why, boolean discardWindow) {
        e.state = State.ENDED;
        e.end = why;
        release(e, discardWindow);
        ended(e);
    }

    /** Gives back what {@code e} held, then lets its buffer go if it was released. */
    private void release(Exposure e, boolean discardWindow) {
        live.remove(e.rkey, e);
        LoopDevice d = connection.loopDevice();
        if (e.window != null) {
            if (discardWindow) {
                d.discardWindow(e.window);
            } else {
                d.returnWindow(e.window);
            }
            e.window = null;
        }
        deregister(e);
        e.buffer().exposureEnded(e);
    }

    private void deregister(Exposure e) {
        MemoryRegion r = e.region;
        e.region = null;
        if (r != null) {
            try {
                r.close();
            } catch (RuntimeException ex) {
                LOG.warn("{}: deregistering the region of {} failed: {}", connection, e, ex.toString());
            }
        }
    }

    // ---- reports to the connection's handler (or to its rendezvous, for the exposures it made) ----

    private void bound(long attachment) {
        connection.events.completed(Operation.BIND_MW, attachment);
    }

    private void bindFailed(long attachment, RdmaException error) {
        try {
            connection.handler.onFailed(connection, Operation.BIND_MW, attachment, error);
        } catch (Throwable t) {
            connection.loop.reportUncaught(t);
        }
    }

    private void ended(Exposure e) {
        if (e.internal) {
            connection.rendezvous.exposureEnded(e);
            return;
        }
        try {
            connection.handler.onExposureEnded(connection, e);
        } catch (Throwable t) {
            connection.loop.reportUncaught(t);
        }
    }
}
