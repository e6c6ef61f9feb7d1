package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_cm_join_mc_attr_ex}: input of {@code rdma_join_multicast_ex} (mask bits in
 * {@code RdmaCmJoinMcAttrMask}, flags in {@code RdmaCmMcJoinFlags}).
 */
public final class RdmaCmJoinMcAttrEx {
    /** {@code struct rdma_cm_join_mc_attr_ex} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("comp_mask"),
            U32.withName("join_flags"),
            PTR.withName("addr"))
            .withName("rdma_cm_join_mc_attr_ex");
    /** {@code sizeof(struct rdma_cm_join_mc_attr_ex)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_cm_join_mc_attr_ex, comp_mask)}. */
    public static final long OFFSET_COMP_MASK = offset(LAYOUT, "comp_mask");
    /** {@code offsetof(struct rdma_cm_join_mc_attr_ex, join_flags)}. */
    public static final long OFFSET_JOIN_FLAGS = offset(LAYOUT, "join_flags");
    /** {@code offsetof(struct rdma_cm_join_mc_attr_ex, addr)}. */
    public static final long OFFSET_ADDR = offset(LAYOUT, "addr");

    private RdmaCmJoinMcAttrEx() {
    }

    public static int compMask(MemorySegment s) {
        return s.get(U32, OFFSET_COMP_MASK);
    }

    public static void compMask(MemorySegment s, int v) {
        s.set(U32, OFFSET_COMP_MASK, v);
    }

    public static int joinFlags(MemorySegment s) {
        return s.get(U32, OFFSET_JOIN_FLAGS);
    }

    public static void joinFlags(MemorySegment s, int v) {
        s.set(U32, OFFSET_JOIN_FLAGS, v);
    }

    public static MemorySegment addr(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_ADDR);
    }

    public static void addr(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_ADDR, v);
    }
}
