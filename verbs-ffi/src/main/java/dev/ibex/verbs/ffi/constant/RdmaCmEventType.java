package dev.ibex.verbs.ffi.constant;

/**
 * CM event types ({@code rdma_cm_event.event}).
 *
 * <p>Values of {@code enum rdma_cm_event_type}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaCmEventType {
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    private RdmaCmEventType() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(RdmaCmEventType.class, value);
    }
}
