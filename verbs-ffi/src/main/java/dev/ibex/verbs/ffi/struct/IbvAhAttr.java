package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_ah_attr}: an address vector (used by {@code ibv_create_ah}, in {@code ibv_qp_attr}
 * for the primary and alternate path, and in UD CM events).
 */
public final class IbvAhAttr {
    /** {@code struct ibv_ah_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvGlobalRoute.LAYOUT.withName("grh"),
            U16.withName("dlid"),
            U8.withName("sl"),
            U8.withName("src_path_bits"),
            U8.withName("static_rate"),
            U8.withName("is_global"),
            U8.withName("port_num"),
            pad(1))
            .withName("ibv_ah_attr");
    /** {@code sizeof(struct ibv_ah_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_ah_attr, grh)}. */
    public static final long OFFSET_GRH = offset(LAYOUT, "grh");
    /** {@code offsetof(struct ibv_ah_attr, grh.dgid)}. */
    public static final long OFFSET_GRH_DGID = offset(LAYOUT, "grh.dgid");
    /** {@code offsetof(struct ibv_ah_attr, grh.flow_label)}. */
    public static final long OFFSET_GRH_FLOW_LABEL = offset(LAYOUT, "grh.flow_label");
    /** {@code offsetof(struct ibv_ah_attr, grh.sgid_index)}. */
    public static final long OFFSET_GRH_SGID_INDEX = offset(LAYOUT, "grh.sgid_index");
    /** {@code offsetof(struct ibv_ah_attr, grh.hop_limit)}. */
    public static final long OFFSET_GRH_HOP_LIMIT = offset(LAYOUT, "grh.hop_limit");
    /** {@code offsetof(struct ibv_ah_attr, grh.traffic_class)}. */
    public static final long OFFSET_GRH_TRAFFIC_CLASS = offset(LAYOUT, "grh.traffic_class");
    /** {@code offsetof(struct ibv_ah_attr, dlid)}. */
    public static final long OFFSET_DLID = offset(LAYOUT, "dlid");
    /** {@code offsetof(struct ibv_ah_attr, sl)}. */
    public static final long OFFSET_SL = offset(LAYOUT, "sl");
    /** {@code offsetof(struct ibv_ah_attr, src_path_bits)}. */
    public static final long OFFSET_SRC_PATH_BITS = offset(LAYOUT, "src_path_bits");
    /** {@code offsetof(struct ibv_ah_attr, static_rate)}. */
    public static final long OFFSET_STATIC_RATE = offset(LAYOUT, "static_rate");
    /** {@code offsetof(struct ibv_ah_attr, is_global)}. */
    public static final long OFFSET_IS_GLOBAL = offset(LAYOUT, "is_global");
    /** {@code offsetof(struct ibv_ah_attr, port_num)}. */
    public static final long OFFSET_PORT_NUM = offset(LAYOUT, "port_num");

    private IbvAhAttr() {
    }

    public static MemorySegment grh(MemorySegment s) {
        return s.asSlice(OFFSET_GRH, IbvGlobalRoute.SIZE);
    }

    public static MemorySegment dgid(MemorySegment s) {
        return s.asSlice(OFFSET_GRH_DGID, IbvGid.SIZE);
    }

    public static int flowLabel(MemorySegment s) {
        return s.get(U32, OFFSET_GRH_FLOW_LABEL);
    }

    public static void flowLabel(MemorySegment s, int v) {
        s.set(U32, OFFSET_GRH_FLOW_LABEL, v);
    }

    public static int sgidIndex(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_GRH_SGID_INDEX));
    }

    public static void sgidIndex(MemorySegment s, int v) {
        s.set(U8, OFFSET_GRH_SGID_INDEX, (byte) v);
    }

    public static int hopLimit(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_GRH_HOP_LIMIT));
    }

    public static void hopLimit(MemorySegment s, int v) {
        s.set(U8, OFFSET_GRH_HOP_LIMIT, (byte) v);
    }

    public static int trafficClass(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_GRH_TRAFFIC_CLASS));
    }

    public static void trafficClass(MemorySegment s, int v) {
        s.set(U8, OFFSET_GRH_TRAFFIC_CLASS, (byte) v);
    }

    public static int dlid(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_DLID));
    }

    public static void dlid(MemorySegment s, int v) {
        s.set(U16, OFFSET_DLID, (short) v);
    }

    public static int sl(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SL));
    }

    public static void sl(MemorySegment s, int v) {
        s.set(U8, OFFSET_SL, (byte) v);
    }

    public static int srcPathBits(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SRC_PATH_BITS));
    }

    public static void srcPathBits(MemorySegment s, int v) {
        s.set(U8, OFFSET_SRC_PATH_BITS, (byte) v);
    }

    public static int staticRate(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_STATIC_RATE));
    }

    public static void staticRate(MemorySegment s, int v) {
        s.set(U8, OFFSET_STATIC_RATE, (byte) v);
    }

    public static int isGlobal(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_IS_GLOBAL));
    }

    public static void isGlobal(MemorySegment s, int v) {
        s.set(U8, OFFSET_IS_GLOBAL, (byte) v);
    }

    public static int portNum(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PORT_NUM));
    }

    public static void portNum(MemorySegment s, int v) {
        s.set(U8, OFFSET_PORT_NUM, (byte) v);
    }
}
