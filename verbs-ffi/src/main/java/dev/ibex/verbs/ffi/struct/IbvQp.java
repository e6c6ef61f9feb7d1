package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp}: a queue pair.
 */
public final class IbvQp {
    /** {@code struct ibv_qp} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            PTR.withName("qp_context"),
            PTR.withName("pd"),
            PTR.withName("send_cq"),
            PTR.withName("recv_cq"),
            PTR.withName("srq"),
            U32.withName("handle"),
            U32.withName("qp_num"),
            U32.withName("state"),
            U32.withName("qp_type"),
            opaque("mutex", 40, 8),
            opaque("cond", 48, 8),
            U32.withName("events_completed"),
            pad(4))
            .withName("ibv_qp");
    /** {@code sizeof(struct ibv_qp)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_qp, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_qp, qp_context)}. */
    public static final long OFFSET_QP_CONTEXT = offset(LAYOUT, "qp_context");
    /** {@code offsetof(struct ibv_qp, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_qp, send_cq)}. */
    public static final long OFFSET_SEND_CQ = offset(LAYOUT, "send_cq");
    /** {@code offsetof(struct ibv_qp, recv_cq)}. */
    public static final long OFFSET_RECV_CQ = offset(LAYOUT, "recv_cq");
    /** {@code offsetof(struct ibv_qp, srq)}. */
    public static final long OFFSET_SRQ = offset(LAYOUT, "srq");
    /** {@code offsetof(struct ibv_qp, handle)}. */
    public static final long OFFSET_HANDLE = offset(LAYOUT, "handle");
    /** {@code offsetof(struct ibv_qp, qp_num)}. */
    public static final long OFFSET_QP_NUM = offset(LAYOUT, "qp_num");
    /** {@code offsetof(struct ibv_qp, state)}. */
    public static final long OFFSET_STATE = offset(LAYOUT, "state");
    /** {@code offsetof(struct ibv_qp, qp_type)}. */
    public static final long OFFSET_QP_TYPE = offset(LAYOUT, "qp_type");
    /** {@code offsetof(struct ibv_qp, events_completed)}. */
    public static final long OFFSET_EVENTS_COMPLETED = offset(LAYOUT, "events_completed");

    private IbvQp() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    public static MemorySegment qpContext(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_QP_CONTEXT);
    }

    public static MemorySegment pd(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_PD, IbvPd.SIZE);
    }

    public static MemorySegment sendCq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_SEND_CQ, IbvCq.SIZE);
    }

    public static MemorySegment recvCq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_RECV_CQ, IbvCq.SIZE);
    }

    public static MemorySegment srq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_SRQ, IbvSrq.SIZE);
    }

    public static int handle(MemorySegment s) {
        return s.get(U32, OFFSET_HANDLE);
    }

    public static int qpNum(MemorySegment s) {
        return s.get(U32, OFFSET_QP_NUM);
    }

    public static int state(MemorySegment s) {
        return s.get(U32, OFFSET_STATE);
    }

    public static int qpType(MemorySegment s) {
        return s.get(U32, OFFSET_QP_TYPE);
    }

    public static int eventsCompleted(MemorySegment s) {
        return s.get(U32, OFFSET_EVENTS_COMPLETED);
    }
}
