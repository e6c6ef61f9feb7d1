package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_cm_event}: owned by librdmacm from {@code rdma_get_cm_event} until
 * {@code rdma_ack_cm_event}; copy what you need, then ack.
 */
public final class RdmaCmEvent {
    /** {@code struct rdma_cm_event} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("id"),
            PTR.withName("listen_id"),
            U32.withName("event"),
            U32.withName("status"),
            MemoryLayout.unionLayout(
                    RdmaConnParam.LAYOUT.withName("conn"),
                    RdmaUdParam.LAYOUT.withName("ud")).withName("param"))
            .withName("rdma_cm_event");
    /** {@code sizeof(struct rdma_cm_event)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_cm_event, id)}. */
    public static final long OFFSET_ID = offset(LAYOUT, "id");
    /** {@code offsetof(struct rdma_cm_event, listen_id)}. */
    public static final long OFFSET_LISTEN_ID = offset(LAYOUT, "listen_id");
    /** {@code offsetof(struct rdma_cm_event, event)}. */
    public static final long OFFSET_EVENT = offset(LAYOUT, "event");
    /** {@code offsetof(struct rdma_cm_event, status)}. */
    public static final long OFFSET_STATUS = offset(LAYOUT, "status");
    /** {@code offsetof(struct rdma_cm_event, param.conn)}. */
    public static final long OFFSET_PARAM_CONN = offset(LAYOUT, "param.conn");
    /** {@code offsetof(struct rdma_cm_event, param.ud)}. */
    public static final long OFFSET_PARAM_UD = offset(LAYOUT, "param.ud");

    private RdmaCmEvent() {
    }

    /** The id the event is for; for CONNECT_REQUEST a new id. */
    public static MemorySegment id(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_ID, RdmaCmId.SIZE);
    }

    public static MemorySegment listenId(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_LISTEN_ID, RdmaCmId.SIZE);
    }

    public static int event(MemorySegment s) {
        return s.get(U32, OFFSET_EVENT);
    }

    public static int status(MemorySegment s) {
        return s.get(U32, OFFSET_STATUS);
    }

    /** {@code param.conn}, valid for RDMA_PS_TCP ids; read with {@link RdmaConnParam}. */
    public static MemorySegment conn(MemorySegment s) {
        return s.asSlice(OFFSET_PARAM_CONN, RdmaConnParam.SIZE);
    }

    /** {@code param.ud}, valid for UDP/IPoIB ids; read with {@link RdmaUdParam}. */
    public static MemorySegment ud(MemorySegment s) {
        return s.asSlice(OFFSET_PARAM_UD, RdmaUdParam.SIZE);
    }
}
