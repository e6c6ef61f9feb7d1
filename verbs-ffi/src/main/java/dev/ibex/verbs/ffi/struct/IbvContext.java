package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_context}: an opened device. The function-pointer offsets used by the inline verbs are
 * {@code OFFSET_OPS_POLL_CQ} (96), {@code OFFSET_OPS_REQ_NOTIFY_CQ} (104), {@code OFFSET_OPS_POST_SRQ_RECV}
 * (168), {@code OFFSET_OPS_POST_SEND} (208) and {@code OFFSET_OPS_POST_RECV} (216).
 */
public final class IbvContext {
    /** {@code struct ibv_context} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("device"),
            IbvContextOps.LAYOUT.withName("ops"),
            U32.withName("cmd_fd"),
            U32.withName("async_fd"),
            U32.withName("num_comp_vectors"),
            pad(4),
            opaque("mutex", 40, 8),
            PTR.withName("abi_compat"))
            .withName("ibv_context");
    /** {@code sizeof(struct ibv_context)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_context, device)}. */
    public static final long OFFSET_DEVICE = offset(LAYOUT, "device");
    /** {@code offsetof(struct ibv_context, ops.alloc_mw)}. */
    public static final long OFFSET_OPS_ALLOC_MW = offset(LAYOUT, "ops.alloc_mw");
    /** {@code offsetof(struct ibv_context, ops.bind_mw)}. */
    public static final long OFFSET_OPS_BIND_MW = offset(LAYOUT, "ops.bind_mw");
    /** {@code offsetof(struct ibv_context, ops.dealloc_mw)}. */
    public static final long OFFSET_OPS_DEALLOC_MW = offset(LAYOUT, "ops.dealloc_mw");
    /** {@code offsetof(struct ibv_context, ops.poll_cq)}. */
    public static final long OFFSET_OPS_POLL_CQ = offset(LAYOUT, "ops.poll_cq");
    /** {@code offsetof(struct ibv_context, ops.req_notify_cq)}. */
    public static final long OFFSET_OPS_REQ_NOTIFY_CQ = offset(LAYOUT, "ops.req_notify_cq");
    /** {@code offsetof(struct ibv_context, ops.post_srq_recv)}. */
    public static final long OFFSET_OPS_POST_SRQ_RECV = offset(LAYOUT, "ops.post_srq_recv");
    /** {@code offsetof(struct ibv_context, ops.post_send)}. */
    public static final long OFFSET_OPS_POST_SEND = offset(LAYOUT, "ops.post_send");
    /** {@code offsetof(struct ibv_context, ops.post_recv)}. */
    public static final long OFFSET_OPS_POST_RECV = offset(LAYOUT, "ops.post_recv");
    /** {@code offsetof(struct ibv_context, cmd_fd)}. */
    public static final long OFFSET_CMD_FD = offset(LAYOUT, "cmd_fd");
    /** {@code offsetof(struct ibv_context, async_fd)}. */
    public static final long OFFSET_ASYNC_FD = offset(LAYOUT, "async_fd");
    /** {@code offsetof(struct ibv_context, num_comp_vectors)}. */
    public static final long OFFSET_NUM_COMP_VECTORS = offset(LAYOUT, "num_comp_vectors");
    /** {@code offsetof(struct ibv_context, abi_compat)}. */
    public static final long OFFSET_ABI_COMPAT = offset(LAYOUT, "abi_compat");

    private IbvContext() {
    }

    public static MemorySegment device(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_DEVICE, IbvDevice.SIZE);
    }

    public static MemorySegment allocMwFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_ALLOC_MW);
    }

    public static MemorySegment bindMwFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_BIND_MW);
    }

    public static MemorySegment deallocMwFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_DEALLOC_MW);
    }

    public static MemorySegment pollCqFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_POLL_CQ);
    }

    public static MemorySegment reqNotifyCqFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_REQ_NOTIFY_CQ);
    }

    public static MemorySegment postSrqRecvFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_POST_SRQ_RECV);
    }

    public static MemorySegment postSendFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_POST_SEND);
    }

    public static MemorySegment postRecvFn(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_OPS_POST_RECV);
    }

    public static int cmdFd(MemorySegment s) {
        return s.get(U32, OFFSET_CMD_FD);
    }

    /** The fd {@code ibv_get_async_event} reads; make it non-blocking and add it to epoll. */
    public static int asyncFd(MemorySegment s) {
        return s.get(U32, OFFSET_ASYNC_FD);
    }

    public static int numCompVectors(MemorySegment s) {
        return s.get(U32, OFFSET_NUM_COMP_VECTORS);
    }

    /** {@code (uintptr_t) abi_compat}: {@link #VERBS_ABI_IS_EXTENDED} when a {@code struct verbs_context} precedes this struct. */
    public static long abiCompat(MemorySegment s) {
        return s.get(U64, OFFSET_ABI_COMPAT);
    }

    /** {@code __VERBS_ABI_IS_EXTENDED}: the value of {@code abi_compat} for an extended context. */
    public static final long VERBS_ABI_IS_EXTENDED = -1L;
}
