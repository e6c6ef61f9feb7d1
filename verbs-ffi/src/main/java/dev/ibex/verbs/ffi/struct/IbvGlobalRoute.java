package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_global_route}: the GRH part of an address vector.
 */
public final class IbvGlobalRoute {
    /** {@code struct ibv_global_route} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvGid.LAYOUT.withName("dgid"),
            U32.withName("flow_label"),
            U8.withName("sgid_index"),
            U8.withName("hop_limit"),
            U8.withName("traffic_class"),
            pad(1))
            .withName("ibv_global_route");
    /** {@code sizeof(struct ibv_global_route)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_global_route, dgid)}. */
    public static final long OFFSET_DGID = offset(LAYOUT, "dgid");
    /** {@code offsetof(struct ibv_global_route, flow_label)}. */
    public static final long OFFSET_FLOW_LABEL = offset(LAYOUT, "flow_label");
    /** {@code offsetof(struct ibv_global_route, sgid_index)}. */
    public static final long OFFSET_SGID_INDEX = offset(LAYOUT, "sgid_index");
    /** {@code offsetof(struct ibv_global_route, hop_limit)}. */
    public static final long OFFSET_HOP_LIMIT = offset(LAYOUT, "hop_limit");
    /** {@code offsetof(struct ibv_global_route, traffic_class)}. */
    public static final long OFFSET_TRAFFIC_CLASS = offset(LAYOUT, "traffic_class");

    private IbvGlobalRoute() {
    }

    public static MemorySegment dgid(MemorySegment s) {
        return s.asSlice(OFFSET_DGID, IbvGid.SIZE);
    }

    public static int flowLabel(MemorySegment s) {
        return s.get(U32, OFFSET_FLOW_LABEL);
    }

    public static void flowLabel(MemorySegment s, int v) {
        s.set(U32, OFFSET_FLOW_LABEL, v);
    }

    public static int sgidIndex(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SGID_INDEX));
    }

    public static void sgidIndex(MemorySegment s, int v) {
        s.set(U8, OFFSET_SGID_INDEX, (byte) v);
    }

    public static int hopLimit(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_HOP_LIMIT));
    }

    public static void hopLimit(MemorySegment s, int v) {
        s.set(U8, OFFSET_HOP_LIMIT, (byte) v);
    }

    public static int trafficClass(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_TRAFFIC_CLASS));
    }

    public static void trafficClass(MemorySegment s, int v) {
        s.set(U8, OFFSET_TRAFFIC_CLASS, (byte) v);
    }
}
