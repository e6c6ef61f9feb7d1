package dev.ibex.cm.loop;

/**
 * The layout of a work request id: never a pointer, always {@code kind | endpoint handle | slot}, so a completion
 * (including a flushed one, whose opcode is undefined) names its endpoint and operation unambiguously and a
 * stale completion of a closed endpoint cannot reach the endpoint that reused its table entry.
 *
 * <pre>
 *  63    60 59                 40 39      32 31                       0
 * | kind   | endpoint index (20) | gen (8)  | slot (32)                 |
 * </pre>
 *
 * Kind 0 is never used. {@link #RECV} and {@link #SRQ_RECV} carry a buffer index as slot; endpoints define their
 * own kinds from {@link #FIRST_ENDPOINT_KIND}.
 */
public final class WrId {
    /** A receive posted to a QP: slot = buffer index in the loop device's pool. */
    public static final int RECV = 1;
    /** A receive posted to the loop device's SRQ: slot = buffer index; the endpoint is found by QP number. */
    public static final int SRQ_RECV = 2;
    /** The first kind endpoints may use for their own operations (up to 15). */
    public static final int FIRST_ENDPOINT_KIND = 3;

    private WrId() {}

    /**
     * Packs a work request id.
     *
     * @param kind the operation's kind, 1 to 15: {@link #RECV}, {@link #SRQ_RECV} or an endpoint's own
     * @param handle the endpoint's handle from {@link EventLoop#register} (28 bits are kept)
     * @param slot what the endpoint needs to find the operation again, e.g. a buffer index
     * @return the wr_id to post
     * @throws IllegalArgumentException when {@code kind} is outside 1..15
     */
    public static long encode(int kind, int handle, int slot) {
        if (kind <= 0 || kind > 15) {
            throw new IllegalArgumentException("wr_id kind must be within 1..15, got " + kind);
        }
        return ((long) kind << 60) | ((long) (handle & 0x0FFF_FFFF) << 32) | (slot & 0xFFFF_FFFFL);
    }

    /**
     * The kind of a work request id.
     *
     * @param wrId an id made by {@link #encode}
     * @return its kind, 1 to 15
     */
    public static int kind(long wrId) {
        return (int) (wrId >>> 60);
    }

    /**
     * The endpoint handle of a work request id.
     *
     * @param wrId an id made by {@link #encode}
     * @return the endpoint index and generation, as returned by {@link EventLoop#register}
     */
    public static int handle(long wrId) {
        return (int) (wrId >>> 32) & 0x0FFF_FFFF;
    }

    /**
     * The slot of a work request id.
     *
     * @param wrId an id made by {@link #encode}
     * @return the slot given to {@link #encode}
     */
    public static int slot(long wrId) {
        return (int) wrId;
    }
}
