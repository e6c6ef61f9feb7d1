package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A fixed-size slice of registered memory from a {@link BufferPool}, with explicit ownership. At any time a
 * buffer is free (in its pool), held (by the application, or by the framework for the length of a call), or lent
 * to the hardware (posted in a work request). Releasing a buffer that is not held throws
 * {@link IllegalStateException}: a second release is a bug that would otherwise hand one slice to two users.
 *
 * <p>A received message is a held buffer whose {@link #offset()}/{@link #length()} frame the payload (on UD
 * endpoints the payload starts after the {@value VerbsAbi#GRH_SIZE}-byte GRH), with its immediate data and, for
 * datagrams, the sender's QP number and GID. The application owns it until {@link #release()}; only then does
 * the connection re-post a receive, which is how receive credits follow demand.
 *
 * <p>A buffer exposed to peers ({@link #addExposure}) is reused only after every exposure ended: releasing it ends
 * them (a memory window's LOCAL_INV is asynchronous), and it reaches its pool once the last is gone.
 *
 * <p>{@link #release()} may be called from any thread; everything else belongs to the pool's event loop.
 */
public final class Buffer {
    static final int FREE = 0;
    static final int HELD = 1;
    static final int LENT = 2;
    static final int RETURNING = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Buffer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BufferPool pool;
    private final int index;
    private final MemorySegment segment;
    private final MemoryRegion region;
    private volatile int state;

    // confined to the pool's loop
    private int offset;
    private int length;
    private int flags;
    private int immData;
    private int sourceQp;
    BufferOwner owner;
    Throwable acquiredAt;
    Throwable releasedAt;
    Buffer nextReturned;
    // remote exposures of the buffer's bytes (loop thread): the buffer returns to the pool only after they ended
    private BufferExposure[] exposures = NO_EXPOSURES;
    private int exposureCount;
    private boolean returnPending;
    private boolean endingExposures;

    private static final BufferExposure[] NO_EXPOSURES = new BufferExposure[0];

    Buffer(BufferPool pool, int index, MemorySegment segment, MemoryRegion region) {
        this.pool = pool;
        this.index = index;
        this.segment = segment;
        this.region = region;
    }

    /** {@return the whole slice ({@link #capacity()} bytes)} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return the slice's size in bytes: the pool's buffer size} */
    public int capacity() {
        return (int) segment.byteSize();
    }

    /** {@return the slice's index in its pool} */
    public int index() {
        return index;
    }

    /** {@return the pool this buffer belongs to and returns to when released} */
    public BufferPool pool() {
        return pool;
    }

    /** {@return the native address of the slice (what goes into a scatter/gather entry)} */
    public long address() {
        return segment.address();
    }

    /**
     * The local key of the pool's registration (for scatter/gather entries). The pool is registered for local access
     * only, so its key gives a peer nothing; to let a peer reach a buffer, expose it on a connection
     * ({@code Connection.expose}), which yields a descriptor for exactly those bytes and rights.
     *
     * @return the local key of the slab's memory region
     */
    public int lkey() {
        return region.lkey();
    }

    /** {@return the pool's registration this slice lies in (for the framework's memory windows)} */
    public MemoryRegion region() {
        return region;
    }

    /** {@return where a received message's payload starts in {@link #segment()}} */
    public int offset() {
        return offset;
    }

    /** {@return the received payload's length in bytes} */
    public int length() {
        return length;
    }

    /** {@return whether the message carried immediate data} */
    public boolean hasImmData() {
        return (flags & WcFlags.WITH_IMM) != 0;
    }

    /** {@return the immediate data (host order); valid when {@link #hasImmData()}} */
    public int immData() {
        return immData;
    }

    /** {@return the sending QP number of a datagram (0 on connections)} */
    public int sourceQp() {
        return sourceQp;
    }

    /**
     * Whether the peer's SEND_WITH_INV that carried this message invalidated a memory window
     * ({@code IBV_WC_WITH_INV}); the exposure it ended has already ended.
     *
     * @return whether the message invalidated an rkey, then {@link #invalidatedRkey()} names it
     */
    public boolean hasInvalidatedRkey() {
        return (flags & WcFlags.WITH_INV) != 0;
    }

    /** {@return the rkey the message's sender invalidated; valid when {@link #hasInvalidatedRkey()}} */
    public int invalidatedRkey() {
        return immData;
    }

    /** {@return whether a datagram's GRH is valid ({@code IBV_WC_GRH})} */
    public boolean hasGrh() {
        return (flags & WcFlags.GRH) != 0;
    }

    /**
     * The sender's GID from a datagram's GRH (on RoCEv2 over IPv4: the IPv4-mapped source address of the IPv4 header
     * in its last 20 bytes), or {@code null} when the GRH is not valid.
     *
     * @return the source GID, or {@code null}
     */
    public Gid sourceGid() {
        return hasGrh() ? Grh.sourceGid(segment) : null;
    }

    /** {@return whether the pool has this buffer (it is neither held nor lent)} */
    public boolean isFree() {
        return state == FREE;
    }

    /**
     * Gives the buffer back to its pool. Thread-safe; when called off the pool's loop the buffer travels back
     * through a lock-free return stack.
     *
     * @throws IllegalStateException when the buffer is not held (released twice, or still lent to the hardware)
     */
    public void release() {
        if (!STATE.compareAndSet(this, HELD, RETURNING)) {
            throw misuse("release");
        }
        pool.recycle(this);
    }

    // --- framework side (endpoints): ownership transfers around work requests ---

    /** Marks the held buffer as lent to the hardware (about to be posted). */
    public void lend() {
        if (!STATE.compareAndSet(this, HELD, LENT)) {
            throw misuse("post");
        }
    }

    /**
     * The hardware gave the buffer back (its work request completed or was flushed); it is held again. A received
     * buffer that was sent on (a zero-copy forward) keeps its owner, which hears of it when it is finally released:
     * otherwise the receive credit it stands for was lost.
     */
    public void reclaim() {
        if (!STATE.compareAndSet(this, LENT, HELD)) {
            throw misuse("reclaim");
        }
    }

    /**
     * A receive completed into this lent buffer: frame the message and hand it to the application, telling
     * {@code owner} when it is released. Loop thread.
     *
     * @param offset where the payload starts in the buffer (after the GRH on UD endpoints)
     * @param length the payload's length in bytes
     * @param wcFlags the completion's {@link WcFlags} bits (immediate data, invalidated rkey, GRH)
     * @param immData the completion's immediate data or invalidated rkey, in host order
     * @param sourceQp the sending QP number of a datagram, 0 on connections
     * @param owner told when the application releases the buffer, or {@code null}
     * @throws IllegalStateException when the buffer is not lent to the hardware
     */
    public void deliver(int offset, int length, int wcFlags, int immData, int sourceQp, BufferOwner owner) {
        reclaim();
        this.offset = offset;
        this.length = length;
        this.flags = wcFlags;
        this.immData = immData;
        this.sourceQp = sourceQp;
        this.owner = owner;
        if (pool.tracksLeaks()) {
            acquiredAt = new Throwable("received into buffer " + index);
        }
    }

    // --- framework side: remote exposures ---

    /**
     * Records that {@code e} lets a peer reach this held buffer's bytes; releasing the buffer will end it first.
     * Loop thread.
     *
     * @param e the exposure (a memory window bound over the buffer's bytes)
     * @throws IllegalStateException when the buffer is not held
     */
    public void addExposure(BufferExposure e) {
        if (state != HELD) {
            throw misuse("expose");
        }
        if (exposureCount == exposures.length) {
            exposures = java.util.Arrays.copyOf(exposures, Math.max(2, exposureCount * 2));
        }
        exposures[exposureCount++] = e;
    }

    /**
     * {@code e} ended: no peer reaches the bytes through it any more. When the buffer was released meanwhile and this
     * was its last exposure, it goes back to its pool now. Loop thread.
     *
     * @param e an exposure added with {@link #addExposure}; unknown ones are ignored
     */
    public void exposureEnded(BufferExposure e) {
        for (int i = 0; i < exposureCount; i++) {
            if (exposures[i] == e) {
                exposures[i] = exposures[--exposureCount];
                exposures[exposureCount] = null;
                break;
            }
        }
        if (exposureCount == 0 && returnPending && !endingExposures) {
            returnPending = false;
            pool.recycle(this);
        }
    }

    /** {@return whether some peer may still reach the buffer's bytes through an exposure} */
    public boolean isExposed() {
        return exposureCount > 0;
    }

    /**
     * The pool is taking the released buffer back: if it is exposed, ask every exposure to end and keep it out of
     * the pool until they have.
     *
     * @return whether the buffer may go back to the pool now
     */
    boolean readyToRecycle() {
        if (exposureCount == 0) {
            return true;
        }
        if (!returnPending) {
            returnPending = true;
            endingExposures = true;
            try {
                for (BufferExposure e : java.util.Arrays.copyOf(exposures, exposureCount)) {
                    e.bufferReleased(); // may end at once and call exposureEnded
                }
            } finally {
                endingExposures = false;
            }
        }
        if (exposureCount == 0) { // every exposure ended at once
            returnPending = false;
            return true;
        }
        return false;
    }

    void reset() {
        offset = 0;
        length = 0;
        flags = 0;
        immData = 0;
        sourceQp = 0;
        owner = null;
        nextReturned = null;
    }

    boolean held() {
        return state == HELD;
    }

    boolean lent() {
        return state == LENT;
    }

    void state(int s) {
        STATE.setVolatile(this, s);
    }

    private IllegalStateException misuse(String what) {
        int s = state;
        String why = switch (s) {
            case FREE, RETURNING -> "it was already released";
            case LENT -> "it is lent to the hardware by a pending work request";
            default -> "it is held";
        };
        IllegalStateException e = new IllegalStateException("cannot " + what + " buffer " + index + " of " + pool
                + ": " + why + (releasedAt == null && acquiredAt == null ? " (enable leak tracking to see where)" : ""));
        if (releasedAt != null && (s == FREE || s == RETURNING)) {
            e.addSuppressed(releasedAt);
        } else if (acquiredAt != null) {
            e.addSuppressed(acquiredAt);
        }
        return e;
    }
}
