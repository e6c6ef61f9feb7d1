package dev.ibex.cm.spi;

/** {@code enum ibv_event_type}: the 19 device async events, with libibverbs numbering. */
public enum AsyncEventType {
    /** {@code IBV_EVENT_CQ_ERR}: the CQ overran or failed; its QPs get no more completions. */
    CQ_ERR(0, Element.CQ),
    /** {@code IBV_EVENT_QP_FATAL}: the QP hit an error it cannot report in a completion and moved to ERR. */
    QP_FATAL(1, Element.QP),
    /** {@code IBV_EVENT_QP_REQ_ERR}: the QP received an invalid request (a transport error) and moved to ERR. */
    QP_REQ_ERR(2, Element.QP),
    /** {@code IBV_EVENT_QP_ACCESS_ERR}: a peer's request violated the QP's access rights; the QP moved to ERR. */
    QP_ACCESS_ERR(3, Element.QP),
    /** {@code IBV_EVENT_COMM_EST}: the first packet arrived on a QP in RTR: communication is established. */
    COMM_EST(4, Element.QP),
    /** {@code IBV_EVENT_SQ_DRAINED}: the send queue of a QP in SQD has no outstanding work left. */
    SQ_DRAINED(5, Element.QP),
    /** {@code IBV_EVENT_PATH_MIG}: the QP migrated to its alternate path. */
    PATH_MIG(6, Element.QP),
    /** {@code IBV_EVENT_PATH_MIG_ERR}: the QP could not migrate to its alternate path. */
    PATH_MIG_ERR(7, Element.QP),
    /** {@code IBV_EVENT_DEVICE_FATAL}: the device failed; every resource on it is unusable. */
    DEVICE_FATAL(8, Element.DEVICE),
    /** {@code IBV_EVENT_PORT_ACTIVE}: a port became active. */
    PORT_ACTIVE(9, Element.PORT),
    /** {@code IBV_EVENT_PORT_ERR}: a port left the active state (link down). */
    PORT_ERR(10, Element.PORT),
    /** {@code IBV_EVENT_LID_CHANGE}: a port's LID changed. */
    LID_CHANGE(11, Element.PORT),
    /** {@code IBV_EVENT_PKEY_CHANGE}: a port's P_Key table changed. */
    PKEY_CHANGE(12, Element.PORT),
    /** {@code IBV_EVENT_SM_CHANGE}: a port's subnet manager changed. */
    SM_CHANGE(13, Element.PORT),
    /** {@code IBV_EVENT_SRQ_ERR}: the SRQ failed; the QPs attached to it get no more receives. */
    SRQ_ERR(14, Element.SRQ),
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: the SRQ's posted receives fell below its armed limit. */
    SRQ_LIMIT_REACHED(15, Element.SRQ),
    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED}: a QP attached to an SRQ in ERR will take no more receives from it. */
    QP_LAST_WQE_REACHED(16, Element.QP),
    /** {@code IBV_EVENT_CLIENT_REREGISTER}: the subnet manager asks clients to register their subscriptions again. */
    CLIENT_REREGISTER(17, Element.PORT),
    /** {@code IBV_EVENT_GID_CHANGE}: a port's GID table changed. */
    GID_CHANGE(18, Element.PORT);

    /** Which member of {@code ibv_async_event.element} the event refers to. */
    public enum Element {
        /** {@code element.cq}: a completion queue. */
        CQ,
        /** {@code element.qp}: a queue pair. */
        QP,
        /** {@code element.srq}: a shared receive queue. */
        SRQ,
        /** {@code element.port_num}: a port of the device. */
        PORT,
        /** The device itself. */
        DEVICE
    }

    private static final AsyncEventType[] BY_CODE = values();

    private final int code;
    private final Element element;

    AsyncEventType(int code, Element element) {
        this.code = code;
        this.element = element;
    }

    /** {@return the {@code enum ibv_event_type} value} */
    public int code() {
        return code;
    }

    /** {@return which object the event is about} */
    public Element element() {
        return element;
    }

    /**
     * The constant for an event type value.
     *
     * @param code an {@code enum ibv_event_type} value
     * @return its constant
     * @throws IllegalArgumentException when this table does not know the value
     */
    public static AsyncEventType ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown async event type " + code);
        }
        return BY_CODE[code];
    }
}
