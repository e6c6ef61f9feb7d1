package dev.ibex.cm.endpoint;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferExposure;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.loop.Window;
import dev.ibex.cm.spi.MemoryRegion;
import java.util.EnumSet;
import java.util.Set;

/**
 * Bytes of a {@link Buffer} a peer may reach with RDMA, with the rights it was given, over one {@link Connection}:
 * the only way Ibex hands out a remote key ({@link Connection#expose}). Send {@link #remote()} to the peer once the
 * exposure is {@link State#ACTIVE}; the descriptor reaches exactly {@code [offset, offset + length)} of the buffer.
 *
 * <p>How, by {@link Mode}: a type 2 memory window bound to the connection's QP over the pool's registration
 * ({@link Mode#WINDOW}: requests on any other connection are refused), the same over a region of exactly the exposed
 * bytes where the device does not confine windows to their own bounds (rxe), or a region of exactly the exposed bytes
 * with the rights where the device has no memory windows ({@link Mode#REGION}: any connection of the loop's PD could
 * use the key, see {@link #isBoundToConnection()}).
 *
 * <p>An exposure ends — the key stops working, then {@link ConnectionHandler#onExposureEnded} — when it is
 * {@link #revoke() revoked}, when its buffer is released, when the peer invalidates it (SEND_WITH_INV), or when the
 * connection closes. A window is invalidated with LOCAL_INV, which is asynchronous: the buffer goes back to the pool
 * only once it has completed (or the QP is in error or gone), so no peer write lands in a buffer someone else uses.
 *
 * <pre>
 *   state      event                      next       what happens
 *   BINDING    bind completed             ACTIVE     onComplete(BIND_MW); a revoke asked meanwhile starts now
 *   BINDING    bind failed / flushed      ENDED      onFailed(BIND_MW); window deallocated, buffer freed if released
 *   BINDING    revoke / buffer released   BINDING    remembered
 *   ACTIVE     revoke / buffer released   REVOKING   LOCAL_INV posted (REGION: deregistered, ENDED at once)
 *   ACTIVE     peer's SEND_WITH_INV       ENDED      the window is free again
 *   REVOKING   LOCAL_INV completed        ENDED      window reused, buffer freed if released
 *   REVOKING   LOCAL_INV failed / flushed ENDED      window deallocated
 *   any        connection torn down       ENDED      window deallocated (the QP is gone)
 * </pre>
 *
 * <p>Threading: {@link #revoke()} from any thread; the rest is read on the connection's loop.
 */
public final class Exposure implements BufferExposure {

    /** How the bytes are exposed. */
    public enum Mode {
        /** The best the device offers: {@link #WINDOW}, else {@link #WINDOW_OVER_REGION}, else {@link #REGION}. */
        AUTO,
        /** A type 2 window over the pool's registration (the device must confine windows to their bounds). */
        WINDOW,
        /** A type 2 window over a region registered for exactly the exposed bytes (costs a registration). */
        WINDOW_OVER_REGION,
        /** A region registered for exactly the exposed bytes with the rights; not bound to the connection. */
        REGION
    }

    /** Where an exposure is in its life. */
    public enum State {
        /** The bind (or registration) is posted; the key does not work yet. */
        BINDING,
        /** The peer can use the key. */
        ACTIVE,
        /** Ending: the invalidation (or deregistration) is under way; the key may still work until it completes. */
        REVOKING,
        /** The key reaches nothing any more; {@link #end()} says why. */
        ENDED
    }

    /** Why an exposure ended. */
    public enum End {
        /** The application revoked it. */
        REVOKED,
        /** Its buffer was released. */
        RELEASED,
        /** The peer invalidated it with SEND_WITH_INV. */
        INVALIDATED,
        /** The connection closed or failed. */
        CLOSED,
        /** It never became active: the bind failed. */
        FAILED
    }

    private final Exposures owner;
    private final Buffer buffer;
    private final int offset;
    private final int length;
    private final int access;
    private final Mode mode;
    final long attachment;
    // loop-confined
    Window window;
    MemoryRegion region;
    int rkey;
    State state = State.BINDING;
    End end;
    /** A revoke or release that arrived while binding. */
    End pendingEnd;
    /** Why the LOCAL_INV in flight was posted. */
    End endingFor;
    /** Made by a {@link Rendezvous} ({@link #attachment} is its message id): its steps are not the application's. */
    boolean internal;

    Exposure(Exposures owner, Buffer buffer, int offset, int length, int access, Mode mode, long attachment) {
        this.owner = owner;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.access = access;
        this.mode = mode;
        this.attachment = attachment;
    }

    /** {@return the connection the bytes are exposed on} */
    public Connection connection() {
        return owner.connection();
    }

    /** {@return the buffer whose bytes are exposed; it stays the caller's} */
    public Buffer buffer() {
        return buffer;
    }

    /** {@return where the exposed bytes start in the buffer} */
    public int offset() {
        return offset;
    }

    /** {@return how many bytes are exposed} */
    public int length() {
        return length;
    }

    /** {@return the rights the peer has} */
    public Set<RemoteAccess> rights() {
        EnumSet<RemoteAccess> s = EnumSet.noneOf(RemoteAccess.class);
        for (RemoteAccess r : RemoteAccess.values()) {
            if ((access & r.access().bit()) != 0) {
                s.add(r);
            }
        }
        return s;
    }

    /** {@return how the bytes are exposed (never {@link Mode#AUTO})} */
    public Mode mode() {
        return mode;
    }

    /** {@return whether only requests arriving on {@link #connection()} can use the key (a type 2 window)} */
    public boolean isBoundToConnection() {
        return mode != Mode.REGION;
    }

    /** {@return where the exposure is in its life} */
    public State state() {
        return state;
    }

    /** {@return why it ended, or {@code null} while it has not} */
    public End end() {
        return end;
    }

    /** {@return whether the peer can use {@link #remote()} now} */
    public boolean isActive() {
        return state == State.ACTIVE;
    }

    /** {@return the rkey the peer uses (meaningful once {@link State#ACTIVE})} */
    public int rkey() {
        return rkey;
    }

    /**
     * What to send the peer: the exposed bytes' address, the key and the length (16 bytes with
     * {@link RemoteBuffer#encode}). Valid from {@link State#ACTIVE} until the exposure ends.
     *
     * @return the descriptor for the peer
     */
    public RemoteBuffer remote() {
        return new RemoteBuffer(buffer.address() + offset, rkey, length);
    }

    /**
     * Ends the exposure (any thread, idempotent): the key stops working, then
     * {@link ConnectionHandler#onExposureEnded} with {@link End#REVOKED}. The buffer stays the caller's.
     */
    public void revoke() {
        owner.revoke(this);
    }

    /** The buffer was released: end first, then let it go back to the pool (on the loop). */
    @Override
    public void bufferReleased() {
        owner.end(this, End.RELEASED);
    }

    int access() {
        return access;
    }

    @Override
    public String toString() {
        return "Exposure[" + mode + " " + rights() + " " + length + " B of buffer " + buffer.index() + " rkey 0x"
                + Integer.toHexString(rkey) + " " + state + (end == null ? "" : " " + end) + "]";
    }
}
