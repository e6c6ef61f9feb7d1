package dev.ibex.cm.spi;

import static dev.ibex.cm.spi.VerbsAbi.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A reusable array of work completions in {@code struct ibv_wc} layout ({@link VerbsAbi}): the rdma-core
 * provider passes {@link #segment()} straight to {@code ibv_poll_cq}; the soft provider writes the same bytes.
 * A flyweight: accessors read native memory in place and allocate nothing.
 */
public final class CompletionBatch {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment segment;
    private final int capacity;

    private CompletionBatch(MemorySegment segment, int capacity) {
        this.segment = segment;
        this.capacity = capacity;
    }

    /** A batch of {@code capacity} completions in memory of {@code arena}. */
    public static CompletionBatch allocate(Arena arena, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive, got " + capacity);
        }
        return new CompletionBatch(arena.allocate((long) capacity * WC_SIZE, 8), capacity);
    }

    public MemorySegment segment() {
        return segment;
    }

    public int capacity() {
        return capacity;
    }

    private static long at(int i, int field) {
        return (long) i * WC_SIZE + field;
    }

    public long wrId(int i) {
        return segment.get(ValueLayout.JAVA_LONG, at(i, WC_WR_ID));
    }

    public int statusCode(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_STATUS));
    }

    public WcStatus status(int i) {
        return WcStatus.ofCode(statusCode(i));
    }

    public boolean isSuccess(int i) {
        return statusCode(i) == 0;
    }

    /** {@link WcOpcode} value. Only valid for successful completions. */
    public int opcode(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_OPCODE));
    }

    public int vendorErr(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_VENDOR_ERR));
    }

    public int byteLen(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_BYTE_LEN));
    }

    /** Immediate data in host order (stored big-endian, as on the wire). Valid when {@link WcFlags#WITH_IMM}. */
    public int immData(int i) {
        return segment.get(INT_BE, at(i, WC_IMM_DATA));
    }

    /** Invalidated rkey. Valid when {@link WcFlags#WITH_INV}. */
    public int invalidatedRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_IMM_DATA));
    }

    public int qpNum(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_QP_NUM));
    }

    public int srcQp(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_SRC_QP));
    }

    public int flags(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_WC_FLAGS));
    }

    public int pkeyIndex(int i) {
        return Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT, at(i, WC_PKEY_INDEX)));
    }

    public int slid(int i) {
        return Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT, at(i, WC_SLID)));
    }

    public int sl(int i) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, at(i, WC_SL)));
    }

    public int dlidPathBits(int i) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, at(i, WC_DLID_PATH_BITS)));
    }

    // --- writers, for providers that produce completions themselves (soft-roce) and for tests ---

    /** Writes a whole completion (the other fields are zeroed). */
    public void set(int i, long wrId, WcStatus status, int opcode, int byteLen, int qpNum, int flags) {
        long base = at(i, 0);
        segment.asSlice(base, WC_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, base + WC_WR_ID, wrId);
        segment.set(ValueLayout.JAVA_INT, base + WC_STATUS, status.code());
        segment.set(ValueLayout.JAVA_INT, base + WC_OPCODE, opcode);
        segment.set(ValueLayout.JAVA_INT, base + WC_BYTE_LEN, byteLen);
        segment.set(ValueLayout.JAVA_INT, base + WC_QP_NUM, qpNum);
        segment.set(ValueLayout.JAVA_INT, base + WC_WC_FLAGS, flags);
    }

    /** Rewrites the {@link WcFlags} of completion {@code i} (a provider normalising what its device reports). */
    public void setFlags(int i, int flags) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_WC_FLAGS), flags);
    }

    public void setImmData(int i, int hostOrderImm) {
        segment.set(INT_BE, at(i, WC_IMM_DATA), hostOrderImm);
    }

    public void setInvalidatedRkey(int i, int rkey) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_IMM_DATA), rkey);
    }

    public void setSrcQp(int i, int srcQp) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_SRC_QP), srcQp);
    }

    public void setVendorErr(int i, int vendorErr) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_VENDOR_ERR), vendorErr);
    }

    public void setPkeyIndex(int i, int pkeyIndex) {
        segment.set(ValueLayout.JAVA_SHORT, at(i, WC_PKEY_INDEX), (short) pkeyIndex);
    }

    public void setSlid(int i, int slid) {
        segment.set(ValueLayout.JAVA_SHORT, at(i, WC_SLID), (short) slid);
    }

    public void setSl(int i, int sl) {
        segment.set(ValueLayout.JAVA_BYTE, at(i, WC_SL), (byte) sl);
    }
}
