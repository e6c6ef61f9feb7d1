package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_srq_init_attr}: input of {@code ibv_create_srq}; {@code attr} returns the granted sizes.
 */
public final class IbvSrqInitAttr {
    /** {@code struct ibv_srq_init_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("srq_context"),
            IbvSrqAttr.LAYOUT.withName("attr"),
            pad(4))
            .withName("ibv_srq_init_attr");
    /** {@code sizeof(struct ibv_srq_init_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_srq_init_attr, srq_context)}. */
    public static final long OFFSET_SRQ_CONTEXT = offset(LAYOUT, "srq_context");
    /** {@code offsetof(struct ibv_srq_init_attr, attr)}. */
    public static final long OFFSET_ATTR = offset(LAYOUT, "attr");
    /** {@code offsetof(struct ibv_srq_init_attr, attr.max_wr)}. */
    public static final long OFFSET_ATTR_MAX_WR = offset(LAYOUT, "attr.max_wr");
    /** {@code offsetof(struct ibv_srq_init_attr, attr.max_sge)}. */
    public static final long OFFSET_ATTR_MAX_SGE = offset(LAYOUT, "attr.max_sge");
    /** {@code offsetof(struct ibv_srq_init_attr, attr.srq_limit)}. */
    public static final long OFFSET_ATTR_SRQ_LIMIT = offset(LAYOUT, "attr.srq_limit");

    private IbvSrqInitAttr() {
    }

    public static MemorySegment srqContext(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_SRQ_CONTEXT);
    }

    public static void srqContext(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_SRQ_CONTEXT, v);
    }

    public static MemorySegment attr(MemorySegment s) {
        return s.asSlice(OFFSET_ATTR, IbvSrqAttr.SIZE);
    }

    public static int maxWr(MemorySegment s) {
        return s.get(U32, OFFSET_ATTR_MAX_WR);
    }

    public static void maxWr(MemorySegment s, int v) {
        s.set(U32, OFFSET_ATTR_MAX_WR, v);
    }

    public static int maxSge(MemorySegment s) {
        return s.get(U32, OFFSET_ATTR_MAX_SGE);
    }

    public static void maxSge(MemorySegment s, int v) {
        s.set(U32, OFFSET_ATTR_MAX_SGE, v);
    }

    public static int srqLimit(MemorySegment s) {
        return s.get(U32, OFFSET_ATTR_SRQ_LIMIT);
    }

    public static void srqLimit(MemorySegment s, int v) {
        s.set(U32, OFFSET_ATTR_SRQ_LIMIT, v);
    }
}
