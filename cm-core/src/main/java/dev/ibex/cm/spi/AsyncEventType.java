package dev.ibex.cm.spi;

/** {@code enum ibv_event_type}: the 19 device async events, with libibverbs numbering. */
public enum AsyncEventType {
    CQ_ERR(0, Element.CQ),
    QP_FATAL(1, Element.QP),
    QP_REQ_ERR(2, Element.QP),
    QP_ACCESS_ERR(3, Element.QP),
    COMM_EST(4, Element.QP),
    SQ_DRAINED(5, Element.QP),
    PATH_MIG(6, Element.QP),
    PATH_MIG_ERR(7, Element.QP),
    DEVICE_FATAL(8, Element.DEVICE),
    PORT_ACTIVE(9, Element.PORT),
    PORT_ERR(10, Element.PORT),
    LID_CHANGE(11, Element.PORT),
    PKEY_CHANGE(12, Element.PORT),
    SM_CHANGE(13, Element.PORT),
    SRQ_ERR(14, Element.SRQ),
    SRQ_LIMIT_REACHED(15, Element.SRQ),
    QP_LAST_WQE_REACHED(16, Element.QP),
    CLIENT_REREGISTER(17, Element.PORT),
    GID_CHANGE(18, Element.PORT);

    /** Which member of {@code ibv_async_event.element} the event refers to. */
    public enum Element { CQ, QP, SRQ, PORT, DEVICE }

    private static final AsyncEventType[] BY_CODE = values();

    private final int code;
    private final Element element;

    AsyncEventType(int code, Element element) {
        this.code = code;
        this.element = element;
    }

    public int code() {
        return code;
    }

    public Element element() {
        return element;
    }

    public static AsyncEventType ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown async event type " + code);
        }
        return BY_CODE[code];
    }
}
