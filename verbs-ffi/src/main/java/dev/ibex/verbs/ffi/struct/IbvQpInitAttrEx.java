package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp_init_attr_ex}: input of {@code ibv_create_qp_ex}/{@code rdma_create_qp_ex}. It begins with
 * the fields of {@code struct ibv_qp_init_attr} (so {@link IbvQpInitAttr}'s accessors work on it); the bindings
 * use {@code comp_mask} = PD | SEND_OPS_FLAGS, {@code pd} and {@code send_ops_flags}. On return {@code cap} holds
 * the sizes actually granted.
 */
public final class IbvQpInitAttrEx {
    /** {@code struct ibv_qp_init_attr_ex} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("qp_context"),
            PTR.withName("send_cq"),
            PTR.withName("recv_cq"),
            PTR.withName("srq"),
            IbvQpCap.LAYOUT.withName("cap"),
            U32.withName("qp_type"),
            U32.withName("sq_sig_all"),
            U32.withName("comp_mask"),
            PTR.withName("pd"),
            PTR.withName("xrcd"),
            U32.withName("create_flags"),
            U16.withName("max_tso_header"),
            pad(2),
            PTR.withName("rwq_ind_tbl"),
            pad(24),
            U32.withName("source_qpn"),
            pad(4),
            U64.withName("send_ops_flags"))
            .withName("ibv_qp_init_attr_ex");
    /** {@code sizeof(struct ibv_qp_init_attr_ex)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_qp_init_attr_ex, comp_mask)}. */
    public static final long OFFSET_COMP_MASK = offset(LAYOUT, "comp_mask");
    /** {@code offsetof(struct ibv_qp_init_attr_ex, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_qp_init_attr_ex, send_ops_flags)}. */
    public static final long OFFSET_SEND_OPS_FLAGS = offset(LAYOUT, "send_ops_flags");

    private IbvQpInitAttrEx() {
    }

    public static void compMask(MemorySegment s, int v) {
        s.set(U32, OFFSET_COMP_MASK, v);
    }

    public static void pd(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_PD, v);
    }

    public static void sendOpsFlags(MemorySegment s, long v) {
        s.set(U64, OFFSET_SEND_OPS_FLAGS, v);
    }
}
