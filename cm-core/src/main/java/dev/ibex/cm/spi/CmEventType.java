package dev.ibex.cm.spi;

/** {@code enum rdma_cm_event_type}, with the librdmacm numbering. */
public enum CmEventType {
    ADDR_RESOLVED(0),
    ADDR_ERROR(1),
    ROUTE_RESOLVED(2),
    ROUTE_ERROR(3),
    CONNECT_REQUEST(4),
    CONNECT_RESPONSE(5),
    CONNECT_ERROR(6),
    UNREACHABLE(7),
    REJECTED(8),
    ESTABLISHED(9),
    DISCONNECTED(10),
    DEVICE_REMOVAL(11),
    MULTICAST_JOIN(12),
    MULTICAST_ERROR(13),
    ADDR_CHANGE(14),
    TIMEWAIT_EXIT(15);

    private static final CmEventType[] BY_CODE = values();

    private final int code;

    CmEventType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

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
