package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp_init_attr}: input of {@code ibv_create_qp}/{@code rdma_create_qp}; on return
 * {@code cap} holds the sizes actually granted.
 */
public final class IbvQpInitAttr {
    /** {@code struct ibv_qp_init_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("qp_context"),
            PTR.withName("send_cq"),
            PTR.withName("recv_cq"),
            PTR.withName("srq"),
            IbvQpCap.LAYOUT.withName("cap"),
            U32.withName("qp_type"),
            U32.withName("sq_sig_all"),
            pad(4))
            .withName("ibv_qp_init_attr");
    /** {@code sizeof(struct ibv_qp_init_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_qp_init_attr, qp_context)}. */
    public static final long OFFSET_QP_CONTEXT = offset(LAYOUT, "qp_context");
    /** {@code offsetof(struct ibv_qp_init_attr, send_cq)}. */
    public static final long OFFSET_SEND_CQ = offset(LAYOUT, "send_cq");
    /** {@code offsetof(struct ibv_qp_init_attr, recv_cq)}. */
    public static final long OFFSET_RECV_CQ = offset(LAYOUT, "recv_cq");
    /** {@code offsetof(struct ibv_qp_init_attr, srq)}. */
    public static final long OFFSET_SRQ = offset(LAYOUT, "srq");
    /** {@code offsetof(struct ibv_qp_init_attr, cap)}. */
    public static final long OFFSET_CAP = offset(LAYOUT, "cap");
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_send_wr)}. */
    public static final long OFFSET_CAP_MAX_SEND_WR = offset(LAYOUT, "cap.max_send_wr");
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_recv_wr)}. */
    public static final long OFFSET_CAP_MAX_RECV_WR = offset(LAYOUT, "cap.max_recv_wr");
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_send_sge)}. */
    public static final long OFFSET_CAP_MAX_SEND_SGE = offset(LAYOUT, "cap.max_send_sge");
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_recv_sge)}. */
    public static final long OFFSET_CAP_MAX_RECV_SGE = offset(LAYOUT, "cap.max_recv_sge");
    /** {@code offsetof(struct ibv_qp_init_attr, cap.max_inline_data)}. */
    public static final long OFFSET_CAP_MAX_INLINE_DATA = offset(LAYOUT, "cap.max_inline_data");
    /** {@code offsetof(struct ibv_qp_init_attr, qp_type)}. */
    public static final long OFFSET_QP_TYPE = offset(LAYOUT, "qp_type");
    /** {@code offsetof(struct ibv_qp_init_attr, sq_sig_all)}. */
    public static final long OFFSET_SQ_SIG_ALL = offset(LAYOUT, "sq_sig_all");

    private IbvQpInitAttr() {
    }

    public static MemorySegment qpContext(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_QP_CONTEXT);
    }

    public static void qpContext(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_QP_CONTEXT, v);
    }

    public static MemorySegment sendCq(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_SEND_CQ);
    }

    public static void sendCq(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_SEND_CQ, v);
    }

    public static MemorySegment recvCq(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_RECV_CQ);
    }

    public static void recvCq(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_RECV_CQ, v);
    }

    public static MemorySegment srq(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_SRQ);
    }

    public static void srq(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_SRQ, v);
    }

    public static MemorySegment cap(MemorySegment s) {
        return s.asSlice(OFFSET_CAP, IbvQpCap.SIZE);
    }

    public static int maxSendWr(MemorySegment s) {
        return s.get(U32, OFFSET_CAP_MAX_SEND_WR);
    }

    public static void maxSendWr(MemorySegment s, int v) {
        s.set(U32, OFFSET_CAP_MAX_SEND_WR, v);
    }

    public static int maxRecvWr(MemorySegment s) {
        return s.get(U32, OFFSET_CAP_MAX_RECV_WR);
    }

    public static void maxRecvWr(MemorySegment s, int v) {
        s.set(U32, OFFSET_CAP_MAX_RECV_WR, v);
    }

    public static int maxSendSge(MemorySegment s) {
        return s.get(U32, OFFSET_CAP_MAX_SEND_SGE);
    }

    public static void maxSendSge(MemorySegment s, int v) {
        s.set(U32, OFFSET_CAP_MAX_SEND_SGE, v);
    }

    public static int maxRecvSge(MemorySegment s) {
        return s.get(U32, OFFSET_CAP_MAX_RECV_SGE);
    }

    public static void maxRecvSge(MemorySegment s, int v) {
        s.set(U32, OFFSET_CAP_MAX_RECV_SGE, v);
    }

    public static int maxInlineData(MemorySegment s) {
        return s.get(U32, OFFSET_CAP_MAX_INLINE_DATA);
    }

    public static void maxInlineData(MemorySegment s, int v) {
        s.set(U32, OFFSET_CAP_MAX_INLINE_DATA, v);
    }

    public static int qpType(MemorySegment s) {
        return s.get(U32, OFFSET_QP_TYPE);
    }

    public static void qpType(MemorySegment s, int v) {
        s.set(U32, OFFSET_QP_TYPE, v);
    }

    public static int sqSigAll(MemorySegment s) {
        return s.get(U32, OFFSET_SQ_SIG_ALL);
    }

    public static void sqSigAll(MemorySegment s, int v) {
        s.set(U32, OFFSET_SQ_SIG_ALL, v);
    }
}
