package dev.ibex.verbs.ffi.constant;

/**
 * Asynchronous event types ({@code ibv_async_event.event_type}).
 *
 * <p>Values of {@code enum ibv_event_type}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvEventType {
    public static final int IBV_EVENT_CQ_ERR = 0;
    public static final int IBV_EVENT_QP_FATAL = 1;
    public static final int IBV_EVENT_QP_REQ_ERR = 2;
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    public static final int IBV_EVENT_COMM_EST = 4;
    public static final int IBV_EVENT_SQ_DRAINED = 5;
    public static final int IBV_EVENT_PATH_MIG = 6;
    public static final int IBV_EVENT_PATH_MIG_ERR = 7;
    public static final int IBV_EVENT_DEVICE_FATAL = 8;
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    public static final int IBV_EVENT_PORT_ERR = 10;
    public static final int IBV_EVENT_LID_CHANGE = 11;
    public static final int IBV_EVENT_PKEY_CHANGE = 12;
    public static final int IBV_EVENT_SM_CHANGE = 13;
    public static final int IBV_EVENT_SRQ_ERR = 14;
    public static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;
    public static final int IBV_EVENT_QP_LAST_WQE_REACHED = 16;
    public static final int IBV_EVENT_CLIENT_REREGISTER = 17;
    public static final int IBV_EVENT_GID_CHANGE = 18;
    public static final int IBV_EVENT_WQ_FATAL = 19;

    private IbvEventType() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvEventType.class, value);
    }
}
