package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_srq_attr}: SRQ size and limit ({@code ibv_modify_srq}/{@code ibv_query_srq}).
 */
public final class IbvSrqAttr {
    /** {@code struct ibv_srq_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_wr"),
            U32.withName("max_sge"),
            U32.withName("srq_limit"))
            .withName("ibv_srq_attr");
    /** {@code sizeof(struct ibv_srq_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_srq_attr, max_wr)}. */
    public static final long OFFSET_MAX_WR = offset(LAYOUT, "max_wr");
    /** {@code offsetof(struct ibv_srq_attr, max_sge)}. */
    public static final long OFFSET_MAX_SGE = offset(LAYOUT, "max_sge");
    /** {@code offsetof(struct ibv_srq_attr, srq_limit)}. */
    public static final long OFFSET_SRQ_LIMIT = offset(LAYOUT, "srq_limit");

    private IbvSrqAttr() {
    }

    public static int maxWr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_WR);
    }

    public static void maxWr(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_WR, v);
    }

    public static int maxSge(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SGE);
    }

    public static void maxSge(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_SGE, v);
    }

    public static int srqLimit(MemorySegment s) {
        return s.get(U32, OFFSET_SRQ_LIMIT);
    }

    public static void srqLimit(MemorySegment s, int v) {
        s.set(U32, OFFSET_SRQ_LIMIT, v);
    }
}
