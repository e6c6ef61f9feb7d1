package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_async_event}: an asynchronous device event; which {@code element} member is valid
 * depends on {@code event_type} (see {@code IbvEventType}).
 */
public final class IbvAsyncEvent {
    /** {@code struct ibv_async_event} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.unionLayout(
                    PTR.withName("cq"),
                    PTR.withName("qp"),
                    PTR.withName("srq"),
                    PTR.withName("wq"),
                    U32.withName("port_num")).withName("element"),
            U32.withName("event_type"),
            pad(4))
            .withName("ibv_async_event");
    /** {@code sizeof(struct ibv_async_event)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_async_event, element.cq)}. */
    public static final long OFFSET_ELEMENT_CQ = offset(LAYOUT, "element.cq");
    /** {@code offsetof(struct ibv_async_event, element.qp)}. */
    public static final long OFFSET_ELEMENT_QP = offset(LAYOUT, "element.qp");
    /** {@code offsetof(struct ibv_async_event, element.srq)}. */
    public static final long OFFSET_ELEMENT_SRQ = offset(LAYOUT, "element.srq");
    /** {@code offsetof(struct ibv_async_event, element.wq)}. */
    public static final long OFFSET_ELEMENT_WQ = offset(LAYOUT, "element.wq");
    /** {@code offsetof(struct ibv_async_event, element.port_num)}. */
    public static final long OFFSET_ELEMENT_PORT_NUM = offset(LAYOUT, "element.port_num");
    /** {@code offsetof(struct ibv_async_event, event_type)}. */
    public static final long OFFSET_EVENT_TYPE = offset(LAYOUT, "event_type");

    private IbvAsyncEvent() {
    }

    public static MemorySegment cq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_ELEMENT_CQ, IbvCq.SIZE);
    }

    public static MemorySegment qp(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_ELEMENT_QP, IbvQp.SIZE);
    }

    public static MemorySegment srq(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_ELEMENT_SRQ, IbvSrq.SIZE);
    }

    public static MemorySegment wq(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_ELEMENT_WQ);
    }

    public static int portNum(MemorySegment s) {
        return s.get(U32, OFFSET_ELEMENT_PORT_NUM);
    }

    public static int eventType(MemorySegment s) {
        return s.get(U32, OFFSET_EVENT_TYPE);
    }
}
