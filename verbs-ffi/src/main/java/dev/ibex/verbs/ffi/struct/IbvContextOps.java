package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_context_ops}: the provider's function table inside {@code struct ibv_context}. The
 * data-path verbs of {@code verbs.h} are {@code static inline} wrappers that call through these pointers
 * (see {@code dev.ibex.verbs.ffi.ContextOps}); every slot is named so the layout test checks them all.
 */
public final class IbvContextOps {
    /** {@code struct ibv_context_ops} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("_compat_query_device"),
            PTR.withName("_compat_query_port"),
            PTR.withName("_compat_alloc_pd"),
            PTR.withName("_compat_dealloc_pd"),
            PTR.withName("_compat_reg_mr"),
            PTR.withName("_compat_rereg_mr"),
            PTR.withName("_compat_dereg_mr"),
            PTR.withName("alloc_mw"),
            PTR.withName("bind_mw"),
            PTR.withName("dealloc_mw"),
            PTR.withName("_compat_create_cq"),
            PTR.withName("poll_cq"),
            PTR.withName("req_notify_cq"),
            PTR.withName("_compat_cq_event"),
            PTR.withName("_compat_resize_cq"),
            PTR.withName("_compat_destroy_cq"),
            PTR.withName("_compat_create_srq"),
            PTR.withName("_compat_modify_srq"),
            PTR.withName("_compat_query_srq"),
            PTR.withName("_compat_destroy_srq"),
            PTR.withName("post_srq_recv"),
            PTR.withName("_compat_create_qp"),
            PTR.withName("_compat_query_qp"),
            PTR.withName("_compat_modify_qp"),
            PTR.withName("_compat_destroy_qp"),
            PTR.withName("post_send"),
            PTR.withName("post_recv"),
            PTR.withName("_compat_create_ah"),
            PTR.withName("_compat_destroy_ah"),
            PTR.withName("_compat_attach_mcast"),
            PTR.withName("_compat_detach_mcast"),
            PTR.withName("_compat_async_event"))
            .withName("ibv_context_ops");
    /** {@code sizeof(struct ibv_context_ops)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_context_ops, alloc_mw)}. */
    public static final long OFFSET_ALLOC_MW = offset(LAYOUT, "alloc_mw");
    /** {@code offsetof(struct ibv_context_ops, bind_mw)}. */
    public static final long OFFSET_BIND_MW = offset(LAYOUT, "bind_mw");
    /** {@code offsetof(struct ibv_context_ops, dealloc_mw)}. */
    public static final long OFFSET_DEALLOC_MW = offset(LAYOUT, "dealloc_mw");
    /** {@code offsetof(struct ibv_context_ops, poll_cq)}. */
    public static final long OFFSET_POLL_CQ = offset(LAYOUT, "poll_cq");
    /** {@code offsetof(struct ibv_context_ops, req_notify_cq)}. */
    public static final long OFFSET_REQ_NOTIFY_CQ = offset(LAYOUT, "req_notify_cq");
    /** {@code offsetof(struct ibv_context_ops, post_srq_recv)}. */
    public static final long OFFSET_POST_SRQ_RECV = offset(LAYOUT, "post_srq_recv");
    /** {@code offsetof(struct ibv_context_ops, post_send)}. */
    public static final long OFFSET_POST_SEND = offset(LAYOUT, "post_send");
    /** {@code offsetof(struct ibv_context_ops, post_recv)}. */
    public static final long OFFSET_POST_RECV = offset(LAYOUT, "post_recv");

    private IbvContextOps() {
    }

    public static MemorySegment pollCq(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_POLL_CQ);
    }

    public static void pollCq(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_POLL_CQ, v);
    }

    public static MemorySegment reqNotifyCq(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_REQ_NOTIFY_CQ);
    }

    public static void reqNotifyCq(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_REQ_NOTIFY_CQ, v);
    }

    public static MemorySegment postSrqRecv(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_POST_SRQ_RECV);
    }

    public static void postSrqRecv(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_POST_SRQ_RECV, v);
    }

    public static MemorySegment postSend(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_POST_SEND);
    }

    public static void postSend(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_POST_SEND, v);
    }

    public static MemorySegment postRecv(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_POST_RECV);
    }

    public static void postRecv(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_POST_RECV, v);
    }
}
