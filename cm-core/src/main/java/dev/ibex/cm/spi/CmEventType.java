package dev.ibex.cm.spi;

/** {@code enum rdma_cm_event_type}, with the librdmacm numbering. */
public enum CmEventType {
    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED}: {@code rdma_resolve_addr} succeeded: the id is bound to a device. */
    ADDR_RESOLVED(0),
    /** {@code RDMA_CM_EVENT_ADDR_ERROR}: {@code rdma_resolve_addr} failed (status: a negative errno). */
    ADDR_ERROR(1),
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED}: {@code rdma_resolve_route} succeeded: the id can connect. */
    ROUTE_RESOLVED(2),
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR}: {@code rdma_resolve_route} failed. */
    ROUTE_ERROR(3),
    /**
     * {@code RDMA_CM_EVENT_CONNECT_REQUEST}: a listener received a connection (or SIDR) request; the event carries a
     * new id to answer.
     */
    CONNECT_REQUEST(4),
    /**
     * {@code RDMA_CM_EVENT_CONNECT_RESPONSE}: the peer accepted a connection whose id has no QP; {@code rdma_establish}
     * completes it.
     */
    CONNECT_RESPONSE(5),
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR}: establishing the connection failed. */
    CONNECT_ERROR(6),
    /**
     * {@code RDMA_CM_EVENT_UNREACHABLE}: the peer did not answer (CM retries exhausted), or a SIDR request failed
     * (status: SIDR status).
     */
    UNREACHABLE(7),
    /**
     * {@code RDMA_CM_EVENT_REJECTED}: the peer rejected (status: the IB CM reject reason; private data: the peer's).
     */
    REJECTED(8),
    /**
     * {@code RDMA_CM_EVENT_ESTABLISHED}: the connection is established (or a SIDR request answered, with
     * {@link UdParam}).
     */
    ESTABLISHED(9),
    /** {@code RDMA_CM_EVENT_DISCONNECTED}: the connection was disconnected, by either side. */
    DISCONNECTED(10),
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL}: the id's device is being removed; destroy the id. */
    DEVICE_REMOVAL(11),
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN}: a multicast join completed (with {@link UdParam} to send to the group). */
    MULTICAST_JOIN(12),
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR}: a multicast join failed, or a joined group was lost. */
    MULTICAST_ERROR(13),
    /**
     * {@code RDMA_CM_EVENT_ADDR_CHANGE}: the id's local address moved to another hardware address (e.g. bonding
     * failover).
     */
    ADDR_CHANGE(14),
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT}: the id's QP left the CM's time-wait state and may be reused. */
    TIMEWAIT_EXIT(15);

    private static final CmEventType[] BY_CODE = values();

    private final int code;

    CmEventType(int code) {
        this.code = code;
    }

    /** {@return the {@code enum rdma_cm_event_type} value} */
    public int code() {
        return code;
    }

    /**
     * The constant for an event type value.
     *
     * @param code an {@code enum rdma_cm_event_type} value
     * @return its constant
     * @throws IllegalArgumentException when this table does not know the value
     */
    public static CmEventType ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown RDMA CM event type " + code);
        }
        return BY_CODE[code];
    }

    /** {@return whether this event ends a connection attempt or a connection with an error} */
    public boolean isError() {
        return switch (this) {
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL, MULTICAST_ERROR,
                    ADDR_CHANGE -> true;
            default -> false;
        };
    }
}
