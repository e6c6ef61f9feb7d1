package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_sa_path_rec} ({@code infiniband/sa.h}): the path record a resolved {@code rdma_cm_id}
 * keeps in {@code route.path_rec}. On RoCE the kernel synthesises it locally (GIDs are IP addresses,
 * LIDs are 0, the traffic class is the ToS).
 */
public final class IbvSaPathRec {
    /** {@code struct ibv_sa_path_rec} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvGid.LAYOUT.withName("dgid"),
            IbvGid.LAYOUT.withName("sgid"),
            BE16.withName("dlid"),
            BE16.withName("slid"),
            U32.withName("raw_traffic"),
            BE32.withName("flow_label"),
            U8.withName("hop_limit"),
            U8.withName("traffic_class"),
            pad(2),
            U32.withName("reversible"),
            U8.withName("numb_path"),
            pad(1),
            BE16.withName("pkey"),
            U8.withName("sl"),
            U8.withName("mtu_selector"),
            U8.withName("mtu"),
            U8.withName("rate_selector"),
            U8.withName("rate"),
            U8.withName("packet_life_time_selector"),
            U8.withName("packet_life_time"),
            U8.withName("preference"))
            .withName("ibv_sa_path_rec");
    /** {@code sizeof(struct ibv_sa_path_rec)}. */
    public static final long SIZE = LAYOUT.byteSize();
    public static final long OFFSET_DGID = offset(LAYOUT, "dgid");
    public static final long OFFSET_SGID = offset(LAYOUT, "sgid");
    public static final long OFFSET_DLID = offset(LAYOUT, "dlid");
    public static final long OFFSET_SLID = offset(LAYOUT, "slid");
    public static final long OFFSET_FLOW_LABEL = offset(LAYOUT, "flow_label");
    public static final long OFFSET_HOP_LIMIT = offset(LAYOUT, "hop_limit");
    public static final long OFFSET_TRAFFIC_CLASS = offset(LAYOUT, "traffic_class");
    public static final long OFFSET_PKEY = offset(LAYOUT, "pkey");
    public static final long OFFSET_SL = offset(LAYOUT, "sl");
    public static final long OFFSET_MTU = offset(LAYOUT, "mtu");
    public static final long OFFSET_RATE = offset(LAYOUT, "rate");
    public static final long OFFSET_PACKET_LIFE_TIME = offset(LAYOUT, "packet_life_time");

    private IbvSaPathRec() {
    }

    public static MemorySegment dgid(MemorySegment s) {
        return s.asSlice(OFFSET_DGID, IbvGid.SIZE);
    }

    public static MemorySegment sgid(MemorySegment s) {
        return s.asSlice(OFFSET_SGID, IbvGid.SIZE);
    }

    public static int dlid(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_DLID));
    }

    public static int slid(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_SLID));
    }

    /** The 20-bit flow label (host order). */
    public static int flowLabel(MemorySegment s) {
        return s.get(BE32, OFFSET_FLOW_LABEL);
    }

    public static int hopLimit(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_HOP_LIMIT));
    }

    public static int trafficClass(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_TRAFFIC_CLASS));
    }

    public static int pkey(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_PKEY));
    }

    public static int sl(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SL));
    }

    /** An {@code enum ibv_mtu} value. */
    public static int mtu(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_MTU));
    }

    public static int rate(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_RATE));
    }

    /** IB time code: 4.096 µs · 2^n. */
    public static int packetLifeTime(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PACKET_LIFE_TIME));
    }
}
