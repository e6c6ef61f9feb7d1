package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_tm_caps}: a device's tag-matching capabilities, inside {@code struct ibv_device_attr_ex}.
 */
public final class IbvTmCaps {
    /** {@code struct ibv_tm_caps}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_rndv_hdr_size"),
            U32.withName("max_num_tags"),
            U32.withName("flags"),
            U32.withName("max_ops"),
            U32.withName("max_sge"))
            .withName("ibv_tm_caps");
    /** {@code sizeof(struct ibv_tm_caps)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_tm_caps, max_rndv_hdr_size)}. */
    public static final long OFFSET_MAX_RNDV_HDR_SIZE = offset(LAYOUT, "max_rndv_hdr_size");
    /** {@code offsetof(struct ibv_tm_caps, max_num_tags)}. */
    public static final long OFFSET_MAX_NUM_TAGS = offset(LAYOUT, "max_num_tags");
    /** {@code offsetof(struct ibv_tm_caps, flags)}. */
    public static final long OFFSET_FLAGS = offset(LAYOUT, "flags");
    /** {@code offsetof(struct ibv_tm_caps, max_ops)}. */
    public static final long OFFSET_MAX_OPS = offset(LAYOUT, "max_ops");
    /** {@code offsetof(struct ibv_tm_caps, max_sge)}. */
    public static final long OFFSET_MAX_SGE = offset(LAYOUT, "max_sge");

    private IbvTmCaps() {
    }

    public static int maxRndvHdrSize(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RNDV_HDR_SIZE);
    }

    public static int maxNumTags(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_NUM_TAGS);
    }

    public static int flags(MemorySegment s) {
        return s.get(U32, OFFSET_FLAGS);
    }

    public static int maxOps(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_OPS);
    }

    public static int maxSge(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SGE);
    }
}
