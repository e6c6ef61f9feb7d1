package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_cm_id}: the CM identifier (416 bytes). {@code rdma_get_local_addr} and
 * {@code rdma_get_peer_addr} are static inline in {@code rdma_cma.h}; use {@link #srcAddr} and
 * {@link #dstAddr}.
 */
public final class RdmaCmId {
    /** {@code struct rdma_cm_id} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("verbs"),
            PTR.withName("channel"),
            PTR.withName("context"),
            PTR.withName("qp"),
            RdmaRoute.LAYOUT.withName("route"),
            U32.withName("ps"),
            U8.withName("port_num"),
            pad(3),
            PTR.withName("event"),
            PTR.withName("send_cq_channel"),
            PTR.withName("send_cq"),
            PTR.withName("recv_cq_channel"),
            PTR.withName("recv_cq"),
            PTR.withName("srq"),
            PTR.withName("pd"),
            U32.withName("qp_type"),
            pad(4))
            .withName("rdma_cm_id");
    /** {@code sizeof(struct rdma_cm_id)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_cm_id, verbs)}. */
    public static final long OFFSET_VERBS = offset(LAYOUT, "verbs");
    /** {@code offsetof(struct rdma_cm_id, channel)}. */
    public static final long OFFSET_CHANNEL = offset(LAYOUT, "channel");
    /** {@code offsetof(struct rdma_cm_id, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct rdma_cm_id, qp)}. */
    public static final long OFFSET_QP = offset(LAYOUT, "qp");
    /** {@code offsetof(struct rdma_cm_id, route.addr.src_addr)}. */
    public static final long OFFSET_ROUTE_ADDR_SRC_ADDR = offset(LAYOUT, "route.addr.src_addr");
    /** {@code offsetof(struct rdma_cm_id, route.addr.dst_addr)}. */
    public static final long OFFSET_ROUTE_ADDR_DST_ADDR = offset(LAYOUT, "route.addr.dst_addr");
    /** {@code offsetof(struct rdma_cm_id, route.addr.addr.ibaddr)}. */
    public static final long OFFSET_ROUTE_ADDR_ADDR_IBADDR = offset(LAYOUT, "route.addr.addr.ibaddr");
    /** {@code offsetof(struct rdma_cm_id, route.path_rec)}. */
    public static final long OFFSET_ROUTE_PATH_REC = offset(LAYOUT, "route.path_rec");
    /** {@code offsetof(struct rdma_cm_id, route.num_paths)}. */
    public static final long OFFSET_ROUTE_NUM_PATHS = offset(LAYOUT, "route.num_paths");
    /** {@code offsetof(struct rdma_cm_id, ps)}. */
    public static final long OFFSET_PS = offset(LAYOUT, "ps");
    /** {@code offsetof(struct rdma_cm_id, port_num)}. */
    public static final long OFFSET_PORT_NUM = offset(LAYOUT, "port_num");
    /** {@code offsetof(struct rdma_cm_id, event)}. */
    public static final long OFFSET_EVENT = offset(LAYOUT, "event");
    /** {@code offsetof(struct rdma_cm_id, send_cq_channel)}. */
    public static final long OFFSET_SEND_CQ_CHANNEL = offset(LAYOUT, "send_cq_channel");
    /** {@code offsetof(struct rdma_cm_id, send_cq)}. */
    public static final long OFFSET_SEND_CQ = offset(LAYOUT, "send_cq");
    /** {@code offsetof(struct rdma_cm_id, recv_cq_channel)}. */
    public static final long OFFSET_RECV_CQ_CHANNEL = offset(LAYOUT, "recv_cq_channel");
    /** {@code offsetof(struct rdma_cm_id, recv_cq)}. */
    public static final long OFFSET_RECV_CQ = offset(LAYOUT, "recv_cq");
    /** {@code offsetof(struct rdma_cm_id, srq)}. */
    public static final long OFFSET_SRQ = offset(LAYOUT, "srq");
    /** {@code offsetof(struct rdma_cm_id, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct rdma_cm_id, qp_type)}. */
    public static final long OFFSET_QP_TYPE = offset(LAYOUT, "qp_type");

    private RdmaCmId() {
    }

    /** The device context the id is bound to (NULL before address resolution or bind to a device address). */
    public static MemorySegment verbs(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_VERBS, IbvContext.SIZE);
    }

    public static MemorySegment channel(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CHANNEL, RdmaEventChannel.SIZE);
    }

    public static MemorySegment context(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_CONTEXT);
    }

    public static MemorySegment qp(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_QP, IbvQp.SIZE);
    }

    /** What {@code rdma_get_local_addr} returns (static inline in the header): read it with {@link Sockaddr#read}. */
    public static MemorySegment srcAddr(MemorySegment s) {
        return s.asSlice(OFFSET_ROUTE_ADDR_SRC_ADDR, SockaddrStorage.SIZE);
    }

    /** What {@code rdma_get_peer_addr} returns (static inline in the header): read it with {@link Sockaddr#read}. */
    public static MemorySegment dstAddr(MemorySegment s) {
        return s.asSlice(OFFSET_ROUTE_ADDR_DST_ADDR, SockaddrStorage.SIZE);
    }

    public static MemorySegment ibaddr(MemorySegment s) {
        return s.asSlice(OFFSET_ROUTE_ADDR_ADDR_IBADDR, RdmaIbAddr.SIZE);
    }

    public static MemorySegment pathRec(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_ROUTE_PATH_REC);
    }

    public static int numPaths(MemorySegment s) {
        return s.get(U32, OFFSET_ROUTE_NUM_PATHS);
    }

    public static int ps(MemorySegment s) {
        return s.get(U32, OFFSET_PS);
    }

    public static int portNum(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PORT_NUM));
    }

    public static MemorySegment event(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_EVENT, RdmaCmEvent.SIZE);
    }

    public static MemorySegment sendCqChannel(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_SEND_CQ_CHANNEL, IbvCompChannel.SIZE);
    }

    public static MemorySegment sendCq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_SEND_CQ, IbvCq.SIZE);
    }

    public static MemorySegment recvCqChannel(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_RECV_CQ_CHANNEL, IbvCompChannel.SIZE);
    }

    public static MemorySegment recvCq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_RECV_CQ, IbvCq.SIZE);
    }

    public static MemorySegment srq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_SRQ, IbvSrq.SIZE);
    }

    public static MemorySegment pd(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_PD, IbvPd.SIZE);
    }

    public static int qpType(MemorySegment s) {
        return s.get(U32, OFFSET_QP_TYPE);
    }
}
