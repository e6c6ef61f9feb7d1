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

    /** Bytes of tag-matching info per completion: the tag (8) and the app context (4), padded. */
    public static final int TM_INFO_SIZE = 16;

    private final MemorySegment segment;
    /** {@code struct ibv_wc_tm_info} per completion, beside the {@code ibv_wc} array ({@code ibv_wc} has no room). */
    private final MemorySegment tmInfo;
    private final int capacity;

    private CompletionBatch(MemorySegment block, int capacity) {
        this.segment = block.asSlice(0, (long) capacity * WC_SIZE);
        this.tmInfo = block.asSlice((long) capacity * WC_SIZE, (long) capacity * TM_INFO_SIZE);
        this.capacity = capacity;
    }

    /**
     * A batch of {@code capacity} completions in memory of {@code arena}.
     *
     * @param arena where the native memory comes from; the batch lives as long as it
     * @param capacity how many completions one poll may return, positive
     * @return the new batch
     * @throws IllegalArgumentException when {@code capacity} is not positive
     */
    public static CompletionBatch allocate(Arena arena, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive, got " + capacity);
        }
        return new CompletionBatch(arena.allocate((long) capacity * (WC_SIZE + TM_INFO_SIZE), 8), capacity);
    }

    /** {@return the native memory of the batch, {@code capacity()} {@code struct ibv_wc}s} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return how many completions the batch holds} */
    public int capacity() {
        return capacity;
    }

    private static long at(int i, int field) {
        return (long) i * WC_SIZE + field;
    }

    /**
     * {@return the work request id of the completed WR, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public long wrId(int i) {
        return segment.get(ValueLayout.JAVA_LONG, at(i, WC_WR_ID));
    }

    /**
     * {@return the {@code enum ibv_wc_status} value, 0 for success, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int statusCode(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_STATUS));
    }

    /**
     * {@return the status as a constant, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public WcStatus status(int i) {
        return WcStatus.ofCode(statusCode(i));
    }

    /**
     * {@return whether the work request succeeded, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public boolean isSuccess(int i) {
        return statusCode(i) == 0;
    }

    /**
     * Reads completion {@code i}'s opcode. Only valid for successful completions.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @return the {@link WcOpcode} value
     */
    public int opcode(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_OPCODE));
    }

    /**
     * {@return the device's vendor error syndrome of a failed completion, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int vendorErr(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_VENDOR_ERR));
    }

    /**
     * {@return the bytes received (receive completions), or transferred by an RDMA READ or atomic, from completion
     * {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int byteLen(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_BYTE_LEN));
    }

    /**
     * Reads completion {@code i}'s immediate data. Valid when {@link WcFlags#WITH_IMM}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @return the immediate data in host order (stored big-endian, as on the wire)
     */
    public int immData(int i) {
        return segment.get(INT_BE, at(i, WC_IMM_DATA));
    }

    /**
     * Reads completion {@code i}'s invalidated rkey. Valid when {@link WcFlags#WITH_INV}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @return the rkey the sender's SEND_WITH_INV invalidated
     */
    public int invalidatedRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_IMM_DATA));
    }

    /**
     * {@return the number of the local QP the work request belonged to, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int qpNum(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_QP_NUM));
    }

    /**
     * {@return the sending QP number of a UD receive, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int srcQp(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_SRC_QP));
    }

    /**
     * {@return the {@link WcFlags} bits, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int flags(int i) {
        return segment.get(ValueLayout.JAVA_INT, at(i, WC_WC_FLAGS));
    }

    /**
     * {@return the tag of the matched message ({@code ibv_wc_tm_info.tag}), from {@link WcOpcode#TM_RECV}
     * completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public long tmTag(int i) {
        return tmInfo.get(ValueLayout.JAVA_LONG, (long) i * TM_INFO_SIZE);
    }

    /**
     * {@return the sender's app context ({@code ibv_wc_tm_info.priv}), from {@link WcOpcode#TM_RECV} completion
     * {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int tmPriv(int i) {
        return tmInfo.get(ValueLayout.JAVA_INT, (long) i * TM_INFO_SIZE + 8);
    }

    /** {@return the tag-matching info of every completion, {@link #TM_INFO_SIZE} bytes each (tag, then priv)} */
    public MemorySegment tmInfoSegment() {
        return tmInfo;
    }

    /**
     * Writes completion {@code i}'s tag-matching info.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param tag the matched message's tag
     * @param priv the sender's app context
     */
    public void setTmInfo(int i, long tag, int priv) {
        tmInfo.set(ValueLayout.JAVA_LONG, (long) i * TM_INFO_SIZE, tag);
        tmInfo.set(ValueLayout.JAVA_LONG, (long) i * TM_INFO_SIZE + 8, Integer.toUnsignedLong(priv));
    }

    /**
     * {@return the P_Key index of a GSI/UD receive, from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int pkeyIndex(int i) {
        return Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT, at(i, WC_PKEY_INDEX)));
    }

    /**
     * {@return the source LID of a UD receive (InfiniBand), from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int slid(int i) {
        return Short.toUnsignedInt(segment.get(ValueLayout.JAVA_SHORT, at(i, WC_SLID)));
    }

    /**
     * {@return the service level of a UD receive (InfiniBand), from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int sl(int i) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, at(i, WC_SL)));
    }

    /**
     * {@return the destination LID path bits of a UD receive (InfiniBand), from completion {@code i}}
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     */
    public int dlidPathBits(int i) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, at(i, WC_DLID_PATH_BITS)));
    }

    // --- writers, for providers that produce completions themselves (soft-roce) and for tests ---

    /**
     * Writes a whole completion (the other fields are zeroed).
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param wrId the work request id of the completed WR
     * @param status the completion's status
     * @param opcode the {@link WcOpcode} value
     * @param byteLen the bytes received or transferred
     * @param qpNum the number of the local QP
     * @param flags the {@link WcFlags} bits
     */
    public void set(int i, long wrId, WcStatus status, int opcode, int byteLen, int qpNum, int flags) {
        long base = at(i, 0);
        segment.asSlice(base, WC_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, base + WC_WR_ID, wrId);
        segment.set(ValueLayout.JAVA_INT, base + WC_STATUS, status.code());
        segment.set(ValueLayout.JAVA_INT, base + WC_OPCODE, opcode);
        segment.set(ValueLayout.JAVA_INT, base + WC_BYTE_LEN, byteLen);
        segment.set(ValueLayout.JAVA_INT, base + WC_QP_NUM, qpNum);
        segment.set(ValueLayout.JAVA_INT, base + WC_WC_FLAGS, flags);
        setTmInfo(i, 0, 0);
    }

    /**
     * Rewrites the {@link WcFlags} of completion {@code i} (a provider normalising what its device reports).
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param flags the {@link WcFlags} bits
     */
    public void setFlags(int i, int flags) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_WC_FLAGS), flags);
    }

    /**
     * Writes completion {@code i}'s immediate data (stored big-endian).
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param hostOrderImm the immediate data, in host order
     */
    public void setImmData(int i, int hostOrderImm) {
        segment.set(INT_BE, at(i, WC_IMM_DATA), hostOrderImm);
    }

    /**
     * Writes completion {@code i}'s invalidated rkey (the immediate data's field).
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param rkey the rkey a SEND_WITH_INV invalidated
     */
    public void setInvalidatedRkey(int i, int rkey) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_IMM_DATA), rkey);
    }

    /**
     * Writes the sending QP number of UD receive {@code i}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param srcQp the sender's QP number
     */
    public void setSrcQp(int i, int srcQp) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_SRC_QP), srcQp);
    }

    /**
     * Writes the vendor error syndrome of failed completion {@code i}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param vendorErr the syndrome
     */
    public void setVendorErr(int i, int vendorErr) {
        segment.set(ValueLayout.JAVA_INT, at(i, WC_VENDOR_ERR), vendorErr);
    }

    /**
     * Writes the P_Key index of receive {@code i}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param pkeyIndex the P_Key index (16 bits)
     */
    public void setPkeyIndex(int i, int pkeyIndex) {
        segment.set(ValueLayout.JAVA_SHORT, at(i, WC_PKEY_INDEX), (short) pkeyIndex);
    }

    /**
     * Writes the source LID of receive {@code i}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param slid the LID (16 bits)
     */
    public void setSlid(int i, int slid) {
        segment.set(ValueLayout.JAVA_SHORT, at(i, WC_SLID), (short) slid);
    }

    /**
     * Writes the service level of receive {@code i}.
     *
     * @param i the completion's index, from 0 to {@link #capacity()} - 1
     * @param sl the service level (4 bits)
     */
    public void setSl(int i, int sl) {
        segment.set(ValueLayout.JAVA_BYTE, at(i, WC_SL), (byte) sl);
    }
}
