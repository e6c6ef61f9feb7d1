package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_mr}: a registered memory region; {@code lkey} goes into SGEs, {@code rkey} to the peer.
 */
public final class IbvMr {
    /** {@code struct ibv_mr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            PTR.withName("pd"),
            PTR.withName("addr"),
            SIZE_T.withName("length"),
            U32.withName("handle"),
            U32.withName("lkey"),
            U32.withName("rkey"),
            pad(4))
            .withName("ibv_mr");
    /** {@code sizeof(struct ibv_mr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_mr, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_mr, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_mr, addr)}. */
    public static final long OFFSET_ADDR = offset(LAYOUT, "addr");
    /** {@code offsetof(struct ibv_mr, length)}. */
    public static final long OFFSET_LENGTH = offset(LAYOUT, "length");
    /** {@code offsetof(struct ibv_mr, handle)}. */
    public static final long OFFSET_HANDLE = offset(LAYOUT, "handle");
    /** {@code offsetof(struct ibv_mr, lkey)}. */
    public static final long OFFSET_LKEY = offset(LAYOUT, "lkey");
    /** {@code offsetof(struct ibv_mr, rkey)}. */
    public static final long OFFSET_RKEY = offset(LAYOUT, "rkey");

    private IbvMr() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    public static MemorySegment pd(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_PD, IbvPd.SIZE);
    }

    /** The registered start address. */
    public static long addr(MemorySegment s) {
        return s.get(U64, OFFSET_ADDR);
    }

    public static long length(MemorySegment s) {
        return s.get(U64, OFFSET_LENGTH);
    }

    public static int handle(MemorySegment s) {
        return s.get(U32, OFFSET_HANDLE);
    }

    public static int lkey(MemorySegment s) {
        return s.get(U32, OFFSET_LKEY);
    }

    public static int rkey(MemorySegment s) {
        return s.get(U32, OFFSET_RKEY);
    }
}
