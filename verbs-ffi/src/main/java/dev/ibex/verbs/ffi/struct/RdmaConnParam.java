package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_conn_param}: connection parameters of {@code rdma_connect}/{@code rdma_accept}, and
 * the {@code param.conn} of a CM event.
 */
public final class RdmaConnParam {
    /** {@code struct rdma_conn_param} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("private_data"),
            U8.withName("private_data_len"),
            U8.withName("responder_resources"),
            U8.withName("initiator_depth"),
            U8.withName("flow_control"),
            U8.withName("retry_count"),
            U8.withName("rnr_retry_count"),
            U8.withName("srq"),
            pad(1),
            U32.withName("qp_num"),
            pad(4))
            .withName("rdma_conn_param");
    /** {@code sizeof(struct rdma_conn_param)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_conn_param, private_data)}. */
    public static final long OFFSET_PRIVATE_DATA = offset(LAYOUT, "private_data");
    /** {@code offsetof(struct rdma_conn_param, private_data_len)}. */
    public static final long OFFSET_PRIVATE_DATA_LEN = offset(LAYOUT, "private_data_len");
    /** {@code offsetof(struct rdma_conn_param, responder_resources)}. */
    public static final long OFFSET_RESPONDER_RESOURCES = offset(LAYOUT, "responder_resources");
    /** {@code offsetof(struct rdma_conn_param, initiator_depth)}. */
    public static final long OFFSET_INITIATOR_DEPTH = offset(LAYOUT, "initiator_depth");
    /** {@code offsetof(struct rdma_conn_param, flow_control)}. */
    public static final long OFFSET_FLOW_CONTROL = offset(LAYOUT, "flow_control");
    /** {@code offsetof(struct rdma_conn_param, retry_count)}. */
    public static final long OFFSET_RETRY_COUNT = offset(LAYOUT, "retry_count");
    /** {@code offsetof(struct rdma_conn_param, rnr_retry_count)}. */
    public static final long OFFSET_RNR_RETRY_COUNT = offset(LAYOUT, "rnr_retry_count");
    /** {@code offsetof(struct rdma_conn_param, srq)}. */
    public static final long OFFSET_SRQ = offset(LAYOUT, "srq");
    /** {@code offsetof(struct rdma_conn_param, qp_num)}. */
    public static final long OFFSET_QP_NUM = offset(LAYOUT, "qp_num");

    private RdmaConnParam() {
    }

    public static MemorySegment privateData(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_PRIVATE_DATA);
    }

    public static void privateData(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_PRIVATE_DATA, v);
    }

    public static int privateDataLen(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PRIVATE_DATA_LEN));
    }

    public static void privateDataLen(MemorySegment s, int v) {
        s.set(U8, OFFSET_PRIVATE_DATA_LEN, (byte) v);
    }

    public static int responderResources(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_RESPONDER_RESOURCES));
    }

    public static void responderResources(MemorySegment s, int v) {
        s.set(U8, OFFSET_RESPONDER_RESOURCES, (byte) v);
    }

    public static int initiatorDepth(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_INITIATOR_DEPTH));
    }

    public static void initiatorDepth(MemorySegment s, int v) {
        s.set(U8, OFFSET_INITIATOR_DEPTH, (byte) v);
    }

    public static int flowControl(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_FLOW_CONTROL));
    }

    public static void flowControl(MemorySegment s, int v) {
        s.set(U8, OFFSET_FLOW_CONTROL, (byte) v);
    }

    public static int retryCount(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_RETRY_COUNT));
    }

    public static void retryCount(MemorySegment s, int v) {
        s.set(U8, OFFSET_RETRY_COUNT, (byte) v);
    }

    public static int rnrRetryCount(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_RNR_RETRY_COUNT));
    }

    public static void rnrRetryCount(MemorySegment s, int v) {
        s.set(U8, OFFSET_RNR_RETRY_COUNT, (byte) v);
    }

    public static int srq(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SRQ));
    }

    public static void srq(MemorySegment s, int v) {
        s.set(U8, OFFSET_SRQ, (byte) v);
    }

    public static int qpNum(MemorySegment s) {
        return s.get(U32, OFFSET_QP_NUM);
    }

    public static void qpNum(MemorySegment s, int v) {
        s.set(U32, OFFSET_QP_NUM, v);
    }

    /**
     * The private data a CM event carries, as a segment of {@code private_data_len} bytes (empty when
     * there is none). It is owned by the event: copy it before {@code rdma_ack_cm_event}.
     */
    public static MemorySegment privateDataBytes(MemorySegment s) {
        MemorySegment p = s.get(ValueLayout.ADDRESS, OFFSET_PRIVATE_DATA);
        return p.address() == 0 ? MemorySegment.NULL : p.reinterpret(privateDataLen(s));
    }
}
