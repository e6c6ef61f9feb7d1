package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_recv_wr}: a receive work request. Data-path struct: accessors take an element index
 * into an array of WRs and pointers are raw addresses ({@code long}), so nothing allocates. Chain WRs by
 * storing the address of the next one in {@code next}.
 */
public final class IbvRecvWr {
    /** {@code struct ibv_recv_wr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            PTR.withName("next"),
            PTR.withName("sg_list"),
            U32.withName("num_sge"),
            pad(4))
            .withName("ibv_recv_wr");
    /** {@code sizeof(struct ibv_recv_wr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_recv_wr, wr_id)}. */
    public static final long OFFSET_WR_ID = offset(LAYOUT, "wr_id");
    /** {@code offsetof(struct ibv_recv_wr, next)}. */
    public static final long OFFSET_NEXT = offset(LAYOUT, "next");
    /** {@code offsetof(struct ibv_recv_wr, sg_list)}. */
    public static final long OFFSET_SG_LIST = offset(LAYOUT, "sg_list");
    /** {@code offsetof(struct ibv_recv_wr, num_sge)}. */
    public static final long OFFSET_NUM_SGE = offset(LAYOUT, "num_sge");

    private IbvRecvWr() {
    }

    public static long wrId(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_ID);
    }

    public static void wrId(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_ID, v);
    }

    /** The next WR of the chain (address, 0 for the last). */
    public static long next(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_NEXT);
    }

    public static void next(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_NEXT, v);
    }

    public static long sgList(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_SG_LIST);
    }

    public static void sgList(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_SG_LIST, v);
    }

    public static int numSge(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_NUM_SGE);
    }

    public static void numSge(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_NUM_SGE, v);
    }

    /** The address of element {@code i} (for {@code next} links and {@code bad_wr} comparisons). */
    public static long address(MemorySegment s, long i) {
        return s.address() + i * SIZE;
    }

    /** Fills element {@code i}: {@code next} is 0 (end of chain) unless set afterwards. */
    public static void set(MemorySegment s, long i, long wrId, long sgList, int numSge) {
        long base = i * SIZE;
        s.set(U64, base + OFFSET_WR_ID, wrId);
        s.set(U64, base + OFFSET_NEXT, 0L);
        s.set(U64, base + OFFSET_SG_LIST, sgList);
        s.set(U32, base + OFFSET_NUM_SGE, numSge);
    }
}
