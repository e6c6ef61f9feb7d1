package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_port_attr} as declared by the installed {@code verbs.h} (52 bytes, 4-aligned, in
 * rdma-core 44; newer headers may append fields, which the layout test would report). The exported
 * {@code ibv_query_port} fills only the legacy prefix up to {@code flags} (48 bytes); see
 * {@code Devices.queryPort}.
 */
public final class IbvPortAttr {
    /** {@code struct ibv_port_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("state"),
            U32.withName("max_mtu"),
            U32.withName("active_mtu"),
            U32.withName("gid_tbl_len"),
            U32.withName("port_cap_flags"),
            U32.withName("max_msg_sz"),
            U32.withName("bad_pkey_cntr"),
            U32.withName("qkey_viol_cntr"),
            U16.withName("pkey_tbl_len"),
            U16.withName("lid"),
            U16.withName("sm_lid"),
            U8.withName("lmc"),
            U8.withName("max_vl_num"),
            U8.withName("sm_sl"),
            U8.withName("subnet_timeout"),
            U8.withName("init_type_reply"),
            U8.withName("active_width"),
            U8.withName("active_speed"),
            U8.withName("phys_state"),
            U8.withName("link_layer"),
            U8.withName("flags"),
            U16.withName("port_cap_flags2"),
            pad(2))
            .withName("ibv_port_attr");
    /** {@code sizeof(struct ibv_port_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_port_attr, state)}. */
    public static final long OFFSET_STATE = offset(LAYOUT, "state");
    /** {@code offsetof(struct ibv_port_attr, max_mtu)}. */
    public static final long OFFSET_MAX_MTU = offset(LAYOUT, "max_mtu");
    /** {@code offsetof(struct ibv_port_attr, active_mtu)}. */
    public static final long OFFSET_ACTIVE_MTU = offset(LAYOUT, "active_mtu");
    /** {@code offsetof(struct ibv_port_attr, gid_tbl_len)}. */
    public static final long OFFSET_GID_TBL_LEN = offset(LAYOUT, "gid_tbl_len");
    /** {@code offsetof(struct ibv_port_attr, port_cap_flags)}. */
    public static final long OFFSET_PORT_CAP_FLAGS = offset(LAYOUT, "port_cap_flags");
    /** {@code offsetof(struct ibv_port_attr, max_msg_sz)}. */
    public static final long OFFSET_MAX_MSG_SZ = offset(LAYOUT, "max_msg_sz");
    /** {@code offsetof(struct ibv_port_attr, bad_pkey_cntr)}. */
    public static final long OFFSET_BAD_PKEY_CNTR = offset(LAYOUT, "bad_pkey_cntr");
    /** {@code offsetof(struct ibv_port_attr, qkey_viol_cntr)}. */
    public static final long OFFSET_QKEY_VIOL_CNTR = offset(LAYOUT, "qkey_viol_cntr");
    /** {@code offsetof(struct ibv_port_attr, pkey_tbl_len)}. */
    public static final long OFFSET_PKEY_TBL_LEN = offset(LAYOUT, "pkey_tbl_len");
    /** {@code offsetof(struct ibv_port_attr, lid)}. */
    public static final long OFFSET_LID = offset(LAYOUT, "lid");
    /** {@code offsetof(struct ibv_port_attr, sm_lid)}. */
    public static final long OFFSET_SM_LID = offset(LAYOUT, "sm_lid");
    /** {@code offsetof(struct ibv_port_attr, lmc)}. */
    public static final long OFFSET_LMC = offset(LAYOUT, "lmc");
    /** {@code offsetof(struct ibv_port_attr, max_vl_num)}. */
    public static final long OFFSET_MAX_VL_NUM = offset(LAYOUT, "max_vl_num");
    /** {@code offsetof(struct ibv_port_attr, sm_sl)}. */
    public static final long OFFSET_SM_SL = offset(LAYOUT, "sm_sl");
    /** {@code offsetof(struct ibv_port_attr, subnet_timeout)}. */
    public static final long OFFSET_SUBNET_TIMEOUT = offset(LAYOUT, "subnet_timeout");
    /** {@code offsetof(struct ibv_port_attr, init_type_reply)}. */
    public static final long OFFSET_INIT_TYPE_REPLY = offset(LAYOUT, "init_type_reply");
    /** {@code offsetof(struct ibv_port_attr, active_width)}. */
    public static final long OFFSET_ACTIVE_WIDTH = offset(LAYOUT, "active_width");
    /** {@code offsetof(struct ibv_port_attr, active_speed)}. */
    public static final long OFFSET_ACTIVE_SPEED = offset(LAYOUT, "active_speed");
    /** {@code offsetof(struct ibv_port_attr, phys_state)}. */
    public static final long OFFSET_PHYS_STATE = offset(LAYOUT, "phys_state");
    /** {@code offsetof(struct ibv_port_attr, link_layer)}. */
    public static final long OFFSET_LINK_LAYER = offset(LAYOUT, "link_layer");
    /** {@code offsetof(struct ibv_port_attr, flags)}. */
    public static final long OFFSET_FLAGS = offset(LAYOUT, "flags");
    /** {@code offsetof(struct ibv_port_attr, port_cap_flags2)}. */
    public static final long OFFSET_PORT_CAP_FLAGS2 = offset(LAYOUT, "port_cap_flags2");

    private IbvPortAttr() {
    }

    public static int state(MemorySegment s) {
        return s.get(U32, OFFSET_STATE);
    }

    public static int maxMtu(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MTU);
    }

    public static int activeMtu(MemorySegment s) {
        return s.get(U32, OFFSET_ACTIVE_MTU);
    }

    public static int gidTblLen(MemorySegment s) {
        return s.get(U32, OFFSET_GID_TBL_LEN);
    }

    public static int portCapFlags(MemorySegment s) {
        return s.get(U32, OFFSET_PORT_CAP_FLAGS);
    }

    public static int maxMsgSz(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MSG_SZ);
    }

    public static int badPkeyCntr(MemorySegment s) {
        return s.get(U32, OFFSET_BAD_PKEY_CNTR);
    }

    public static int qkeyViolCntr(MemorySegment s) {
        return s.get(U32, OFFSET_QKEY_VIOL_CNTR);
    }

    public static int pkeyTblLen(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_PKEY_TBL_LEN));
    }

    public static int lid(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_LID));
    }

    public static int smLid(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_SM_LID));
    }

    public static int lmc(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_LMC));
    }

    public static int maxVlNum(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_MAX_VL_NUM));
    }

    public static int smSl(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SM_SL));
    }

    public static int subnetTimeout(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SUBNET_TIMEOUT));
    }

    public static int initTypeReply(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_INIT_TYPE_REPLY));
    }

    public static int activeWidth(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_ACTIVE_WIDTH));
    }

    public static int activeSpeed(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_ACTIVE_SPEED));
    }

    public static int physState(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PHYS_STATE));
    }

    public static int linkLayer(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_LINK_LAYER));
    }

    public static int flags(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_FLAGS));
    }

    public static int portCapFlags2(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_PORT_CAP_FLAGS2));
    }
}
