package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_mw_bind_info}: memory-window bind parameters (part of {@code ibv_send_wr}).
 */
public final class IbvMwBindInfo {
    /** {@code struct ibv_mw_bind_info} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("mr"),
            U64.withName("addr"),
            U64.withName("length"),
            U32.withName("mw_access_flags"),
            pad(4))
            .withName("ibv_mw_bind_info");
    /** {@code sizeof(struct ibv_mw_bind_info)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_mw_bind_info, mr)}. */
    public static final long OFFSET_MR = offset(LAYOUT, "mr");
    /** {@code offsetof(struct ibv_mw_bind_info, addr)}. */
    public static final long OFFSET_ADDR = offset(LAYOUT, "addr");
    /** {@code offsetof(struct ibv_mw_bind_info, length)}. */
    public static final long OFFSET_LENGTH = offset(LAYOUT, "length");
    /** {@code offsetof(struct ibv_mw_bind_info, mw_access_flags)}. */
    public static final long OFFSET_MW_ACCESS_FLAGS = offset(LAYOUT, "mw_access_flags");

    private IbvMwBindInfo() {
    }

    public static MemorySegment mr(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_MR);
    }

    public static void mr(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_MR, v);
    }

    public static long addr(MemorySegment s) {
        return s.get(U64, OFFSET_ADDR);
    }

    public static void addr(MemorySegment s, long v) {
        s.set(U64, OFFSET_ADDR, v);
    }

    public static long length(MemorySegment s) {
        return s.get(U64, OFFSET_LENGTH);
    }

    public static void length(MemorySegment s, long v) {
        s.set(U64, OFFSET_LENGTH, v);
    }

    public static int mwAccessFlags(MemorySegment s) {
        return s.get(U32, OFFSET_MW_ACCESS_FLAGS);
    }

    public static void mwAccessFlags(MemorySegment s, int v) {
        s.set(U32, OFFSET_MW_ACCESS_FLAGS, v);
    }
}
