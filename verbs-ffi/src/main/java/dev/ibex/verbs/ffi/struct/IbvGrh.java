package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_grh}: the 40-byte global routing header that a UD receive buffer holds in front of
 * the payload (present when {@code wc_flags & IBV_WC_GRH}).
 */
public final class IbvGrh {
    /** {@code struct ibv_grh} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            BE32.withName("version_tclass_flow"),
            BE16.withName("paylen"),
            U8.withName("next_hdr"),
            U8.withName("hop_limit"),
            IbvGid.LAYOUT.withName("sgid"),
            IbvGid.LAYOUT.withName("dgid"))
            .withName("ibv_grh");
    /** {@code sizeof(struct ibv_grh)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_grh, version_tclass_flow)}. */
    public static final long OFFSET_VERSION_TCLASS_FLOW = offset(LAYOUT, "version_tclass_flow");
    /** {@code offsetof(struct ibv_grh, paylen)}. */
    public static final long OFFSET_PAYLEN = offset(LAYOUT, "paylen");
    /** {@code offsetof(struct ibv_grh, next_hdr)}. */
    public static final long OFFSET_NEXT_HDR = offset(LAYOUT, "next_hdr");
    /** {@code offsetof(struct ibv_grh, hop_limit)}. */
    public static final long OFFSET_HOP_LIMIT = offset(LAYOUT, "hop_limit");
    /** {@code offsetof(struct ibv_grh, sgid)}. */
    public static final long OFFSET_SGID = offset(LAYOUT, "sgid");
    /** {@code offsetof(struct ibv_grh, dgid)}. */
    public static final long OFFSET_DGID = offset(LAYOUT, "dgid");

    private IbvGrh() {
    }

    public static int versionTclassFlow(MemorySegment s) {
        return s.get(BE32, OFFSET_VERSION_TCLASS_FLOW);
    }

    public static int paylen(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_PAYLEN));
    }

    public static int nextHdr(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_NEXT_HDR));
    }

    public static int hopLimit(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_HOP_LIMIT));
    }

    public static MemorySegment sgid(MemorySegment s) {
        return s.asSlice(OFFSET_SGID, IbvGid.SIZE);
    }

    public static MemorySegment dgid(MemorySegment s) {
        return s.asSlice(OFFSET_DGID, IbvGid.SIZE);
    }
}
