package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import dev.ibex.verbs.ffi.constant.IbvSrqInitAttrMask;
import dev.ibex.verbs.ffi.constant.IbvSrqType;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_srq_init_attr_ex}: input of {@code ibv_create_srq_ex} (a TM-SRQ: {@code srq_type}
 * {@code IBV_SRQT_TM}, a {@code cq} and {@code tm_cap}).
 */
public final class IbvSrqInitAttrEx {
    /** {@code struct ibv_srq_init_attr_ex} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("srq_context"),
            IbvSrqAttr.LAYOUT.withName("attr"),
            U32.withName("comp_mask"),
            U32.withName("srq_type"),
            pad(4),
            PTR.withName("pd"),
            PTR.withName("xrcd"),
            PTR.withName("cq"),
            IbvTmCap.LAYOUT.withName("tm_cap"))
            .withName("ibv_srq_init_attr_ex");
    /** {@code sizeof(struct ibv_srq_init_attr_ex)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_srq_init_attr_ex, attr)}. */
    public static final long OFFSET_ATTR = offset(LAYOUT, "attr");
    /** {@code offsetof(struct ibv_srq_init_attr_ex, comp_mask)}. */
    public static final long OFFSET_COMP_MASK = offset(LAYOUT, "comp_mask");
    /** {@code offsetof(struct ibv_srq_init_attr_ex, srq_type)}. */
    public static final long OFFSET_SRQ_TYPE = offset(LAYOUT, "srq_type");
    /** {@code offsetof(struct ibv_srq_init_attr_ex, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_srq_init_attr_ex, cq)}. */
    public static final long OFFSET_CQ = offset(LAYOUT, "cq");
    /** {@code offsetof(struct ibv_srq_init_attr_ex, tm_cap.max_num_tags)}. */
    public static final long OFFSET_TM_CAP_MAX_NUM_TAGS = offset(LAYOUT, "tm_cap.max_num_tags");
    /** {@code offsetof(struct ibv_srq_init_attr_ex, tm_cap.max_ops)}. */
    public static final long OFFSET_TM_CAP_MAX_OPS = offset(LAYOUT, "tm_cap.max_ops");

    private IbvSrqInitAttrEx() {
    }

    /** Fills a TM-SRQ request: type, PD, CQ and sizes, with the matching {@code comp_mask}. */
    public static void tm(MemorySegment s, MemorySegment pd, MemorySegment cq, int maxWr, int maxSge, int maxNumTags,
            int maxOps) {
        s.asSlice(0, SIZE).fill((byte) 0);
        MemorySegment attr = s.asSlice(OFFSET_ATTR, IbvSrqAttr.SIZE);
        IbvSrqAttr.maxWr(attr, maxWr);
        IbvSrqAttr.maxSge(attr, maxSge);
        s.set(U32, OFFSET_COMP_MASK, IbvSrqInitAttrMask.IBV_SRQ_INIT_ATTR_TYPE
                | IbvSrqInitAttrMask.IBV_SRQ_INIT_ATTR_PD
                | IbvSrqInitAttrMask.IBV_SRQ_INIT_ATTR_CQ
                | IbvSrqInitAttrMask.IBV_SRQ_INIT_ATTR_TM);
        s.set(U32, OFFSET_SRQ_TYPE, IbvSrqType.IBV_SRQT_TM);
        s.set(ValueLayout.ADDRESS, OFFSET_PD, pd);
        s.set(ValueLayout.ADDRESS, OFFSET_CQ, cq);
        s.set(U32, OFFSET_TM_CAP_MAX_NUM_TAGS, maxNumTags);
        s.set(U32, OFFSET_TM_CAP_MAX_OPS, maxOps);
    }
}
