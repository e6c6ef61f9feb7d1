package dev.ibex.cm.spi;

/** {@code enum ibv_qp_state}. */
public enum QpState {
    /** {@code IBV_QPS_RESET}: just created, or reset; nothing can be posted. */
    RESET,
    /** {@code IBV_QPS_INIT}: receives may be posted, nothing is processed yet. */
    INIT,
    /** {@code IBV_QPS_RTR}: ready to receive. */
    RTR,
    /** {@code IBV_QPS_RTS}: ready to send; the normal state of a working QP. */
    RTS,
    /** {@code IBV_QPS_SQD}: send queue drained; sends posted are not started. */
    SQD,
    /** {@code IBV_QPS_SQE}: send queue error (UC/UD): a send failed, receives still work. */
    SQE,
    /** {@code IBV_QPS_ERR}: error; every posted work request completes flushed. */
    ERR;

    /** {@return the {@code enum ibv_qp_state} value} */
    public int code() {
        return ordinal();
    }

    /**
     * The constant for a state value.
     *
     * @param code an {@code enum ibv_qp_state} value, 0 to 6
     * @return its constant
     * @throws ArrayIndexOutOfBoundsException for another value
     */
    public static QpState ofCode(int code) {
        return BY_CODE[code];
    }

    /** {@code values()} once: each call of it copies the array (a QP modify asked twice per transition). */
    private static final QpState[] BY_CODE = values();
}
