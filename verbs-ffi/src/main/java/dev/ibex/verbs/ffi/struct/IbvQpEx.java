package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp_ex}: a QP made by {@code ibv_create_qp_ex} with send-ops flags, as
 * {@code ibv_qp_to_qp_ex} returns it. The {@code ibv_wr_*} verbs are {@code static inline} calls of its function
 * pointers, which the provider sets for the operations the QP was created with (the others stay NULL);
 * {@code wr_id} and {@code wr_flags} are read by each WR builder.
 */
public final class IbvQpEx {
    /** {@code struct ibv_qp_ex} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvQp.LAYOUT.withName("qp_base"),
            U64.withName("comp_mask"),
            U64.withName("wr_id"),
            U32.withName("wr_flags"),
            pad(4),
            PTR.withName("wr_atomic_cmp_swp"),
            PTR.withName("wr_atomic_fetch_add"),
            PTR.withName("wr_bind_mw"),
            PTR.withName("wr_local_inv"),
            PTR.withName("wr_rdma_read"),
            PTR.withName("wr_rdma_write"),
            PTR.withName("wr_rdma_write_imm"),
            PTR.withName("wr_send"),
            PTR.withName("wr_send_imm"),
            PTR.withName("wr_send_inv"),
            PTR.withName("wr_send_tso"),
            PTR.withName("wr_set_ud_addr"),
            PTR.withName("wr_set_xrc_srqn"),
            PTR.withName("wr_set_inline_data"),
            PTR.withName("wr_set_inline_data_list"),
            PTR.withName("wr_set_sge"),
            PTR.withName("wr_set_sge_list"),
            PTR.withName("wr_start"),
            PTR.withName("wr_complete"),
            PTR.withName("wr_abort"),
            PTR.withName("wr_atomic_write"))
            .withName("ibv_qp_ex");
    /** {@code sizeof(struct ibv_qp_ex)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_qp_ex, comp_mask)}. */
    public static final long OFFSET_COMP_MASK = offset(LAYOUT, "comp_mask");
    /** {@code offsetof(struct ibv_qp_ex, wr_id)}. */
    public static final long OFFSET_WR_ID = offset(LAYOUT, "wr_id");
    /** {@code offsetof(struct ibv_qp_ex, wr_flags)}. */
    public static final long OFFSET_WR_FLAGS = offset(LAYOUT, "wr_flags");
    /** {@code offsetof(struct ibv_qp_ex, wr_atomic_cmp_swp)}. */
    public static final long OFFSET_WR_ATOMIC_CMP_SWP = offset(LAYOUT, "wr_atomic_cmp_swp");
    /** {@code offsetof(struct ibv_qp_ex, wr_atomic_fetch_add)}. */
    public static final long OFFSET_WR_ATOMIC_FETCH_ADD = offset(LAYOUT, "wr_atomic_fetch_add");
    /** {@code offsetof(struct ibv_qp_ex, wr_bind_mw)}. */
    public static final long OFFSET_WR_BIND_MW = offset(LAYOUT, "wr_bind_mw");
    /** {@code offsetof(struct ibv_qp_ex, wr_local_inv)}. */
    public static final long OFFSET_WR_LOCAL_INV = offset(LAYOUT, "wr_local_inv");
    /** {@code offsetof(struct ibv_qp_ex, wr_rdma_read)}. */
    public static final long OFFSET_WR_RDMA_READ = offset(LAYOUT, "wr_rdma_read");
    /** {@code offsetof(struct ibv_qp_ex, wr_rdma_write)}. */
    public static final long OFFSET_WR_RDMA_WRITE = offset(LAYOUT, "wr_rdma_write");
    /** {@code offsetof(struct ibv_qp_ex, wr_rdma_write_imm)}. */
    public static final long OFFSET_WR_RDMA_WRITE_IMM = offset(LAYOUT, "wr_rdma_write_imm");
    /** {@code offsetof(struct ibv_qp_ex, wr_send)}. */
    public static final long OFFSET_WR_SEND = offset(LAYOUT, "wr_send");
    /** {@code offsetof(struct ibv_qp_ex, wr_send_imm)}. */
    public static final long OFFSET_WR_SEND_IMM = offset(LAYOUT, "wr_send_imm");
    /** {@code offsetof(struct ibv_qp_ex, wr_send_inv)}. */
    public static final long OFFSET_WR_SEND_INV = offset(LAYOUT, "wr_send_inv");
    /** {@code offsetof(struct ibv_qp_ex, wr_send_tso)}. */
    public static final long OFFSET_WR_SEND_TSO = offset(LAYOUT, "wr_send_tso");
    /** {@code offsetof(struct ibv_qp_ex, wr_set_ud_addr)}. */
    public static final long OFFSET_WR_SET_UD_ADDR = offset(LAYOUT, "wr_set_ud_addr");
    /** {@code offsetof(struct ibv_qp_ex, wr_set_xrc_srqn)}. */
    public static final long OFFSET_WR_SET_XRC_SRQN = offset(LAYOUT, "wr_set_xrc_srqn");
    /** {@code offsetof(struct ibv_qp_ex, wr_set_inline_data)}. */
    public static final long OFFSET_WR_SET_INLINE_DATA = offset(LAYOUT, "wr_set_inline_data");
    /** {@code offsetof(struct ibv_qp_ex, wr_set_inline_data_list)}. */
    public static final long OFFSET_WR_SET_INLINE_DATA_LIST = offset(LAYOUT, "wr_set_inline_data_list");
    /** {@code offsetof(struct ibv_qp_ex, wr_set_sge)}. */
    public static final long OFFSET_WR_SET_SGE = offset(LAYOUT, "wr_set_sge");
    /** {@code offsetof(struct ibv_qp_ex, wr_set_sge_list)}. */
    public static final long OFFSET_WR_SET_SGE_LIST = offset(LAYOUT, "wr_set_sge_list");
    /** {@code offsetof(struct ibv_qp_ex, wr_start)}. */
    public static final long OFFSET_WR_START = offset(LAYOUT, "wr_start");
    /** {@code offsetof(struct ibv_qp_ex, wr_complete)}. */
    public static final long OFFSET_WR_COMPLETE = offset(LAYOUT, "wr_complete");
    /** {@code offsetof(struct ibv_qp_ex, wr_abort)}. */
    public static final long OFFSET_WR_ABORT = offset(LAYOUT, "wr_abort");
    /** {@code offsetof(struct ibv_qp_ex, wr_atomic_write)}. */
    public static final long OFFSET_WR_ATOMIC_WRITE = offset(LAYOUT, "wr_atomic_write");

    private IbvQpEx() {
    }

    public static void wrId(MemorySegment s, long v) {
        s.set(U64, OFFSET_WR_ID, v);
    }

    public static void wrFlags(MemorySegment s, int v) {
        s.set(U32, OFFSET_WR_FLAGS, v);
    }

    public static MemorySegment wrAtomicCmpSwpFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_ATOMIC_CMP_SWP);
    }

    public static MemorySegment wrAtomicFetchAddFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_ATOMIC_FETCH_ADD);
    }

    public static MemorySegment wrBindMwFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_BIND_MW);
    }

    public static MemorySegment wrLocalInvFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_LOCAL_INV);
    }

    public static MemorySegment wrRdmaReadFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_RDMA_READ);
    }

    public static MemorySegment wrRdmaWriteFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_RDMA_WRITE);
    }

    public static MemorySegment wrRdmaWriteImmFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_RDMA_WRITE_IMM);
    }

    public static MemorySegment wrSendFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SEND);
    }

    public static MemorySegment wrSendImmFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SEND_IMM);
    }

    public static MemorySegment wrSendInvFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SEND_INV);
    }

    public static MemorySegment wrSendTsoFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SEND_TSO);
    }

    public static MemorySegment wrSetUdAddrFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SET_UD_ADDR);
    }

    public static MemorySegment wrSetXrcSrqnFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SET_XRC_SRQN);
    }

    public static MemorySegment wrSetInlineDataFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SET_INLINE_DATA);
    }

    public static MemorySegment wrSetInlineDataListFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SET_INLINE_DATA_LIST);
    }

    public static MemorySegment wrSetSgeFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SET_SGE);
    }

    public static MemorySegment wrSetSgeListFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_SET_SGE_LIST);
    }

    public static MemorySegment wrStartFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_START);
    }

    public static MemorySegment wrCompleteFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_COMPLETE);
    }

    public static MemorySegment wrAbortFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_ABORT);
    }

    public static MemorySegment wrAtomicWriteFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_WR_ATOMIC_WRITE);
    }

}
