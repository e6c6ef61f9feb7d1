package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp_cap}: queue sizes of a QP (20 bytes, 4-aligned).
 */
public final class IbvQpCap {
    /** {@code struct ibv_qp_cap} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_send_wr"),
            U32.withName("max_recv_wr"),
            U32.withName("max_send_sge"),
            U32.withName("max_recv_sge"),
            U32.withName("max_inline_data"))
            .withName("ibv_qp_cap");
    /** {@code sizeof(struct ibv_qp_cap)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_qp_cap, max_send_wr)}. */
    public static final long OFFSET_MAX_SEND_WR = offset(LAYOUT, "max_send_wr");
    /** {@code offsetof(struct ibv_qp_cap, max_recv_wr)}. */
    public static final long OFFSET_MAX_RECV_WR = offset(LAYOUT, "max_recv_wr");
    /** {@code offsetof(struct ibv_qp_cap, max_send_sge)}. */
    public static final long OFFSET_MAX_SEND_SGE = offset(LAYOUT, "max_send_sge");
    /** {@code offsetof(struct ibv_qp_cap, max_recv_sge)}. */
    public static final long OFFSET_MAX_RECV_SGE = offset(LAYOUT, "max_recv_sge");
    /** {@code offsetof(struct ibv_qp_cap, max_inline_data)}. */
    public static final long OFFSET_MAX_INLINE_DATA = offset(LAYOUT, "max_inline_data");

    private IbvQpCap() {
    }

    public static int maxSendWr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SEND_WR);
    }

    public static void maxSendWr(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_SEND_WR, v);
    }

    public static int maxRecvWr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RECV_WR);
    }

    public static void maxRecvWr(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_RECV_WR, v);
    }

    public static int maxSendSge(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SEND_SGE);
    }

    public static void maxSendSge(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_SEND_SGE, v);
    }

    public static int maxRecvSge(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RECV_SGE);
    }

    public static void maxRecvSge(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_RECV_SGE, v);
    }

    public static int maxInlineData(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_INLINE_DATA);
    }

    public static void maxInlineData(MemorySegment s, int v) {
        s.set(U32, OFFSET_MAX_INLINE_DATA, v);
    }
}
