package dev.ibex.cm.spi;

/** {@code enum ibv_wc_status}. */
public enum WcStatus {
    /** {@code IBV_WC_SUCCESS} (0): success. */
    SUCCESS(0, "success"),
    /** {@code IBV_WC_LOC_LEN_ERR} (1): local length error: the receive buffer is smaller than the message. */
    LOC_LEN_ERR(1, "local length error: the receive buffer is smaller than the message"),
    /** {@code IBV_WC_LOC_QP_OP_ERR} (2): local QP operation error. */
    LOC_QP_OP_ERR(2, "local QP operation error"),
    /** {@code IBV_WC_LOC_EEC_OP_ERR} (3): local EE context operation error. */
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    /** {@code IBV_WC_LOC_PROT_ERR} (4): local protection error: bad lkey or buffer outside the memory region. */
    LOC_PROT_ERR(4, "local protection error: bad lkey or buffer outside the memory region"),
    /**
     * {@code IBV_WC_WR_FLUSH_ERR} (5): work request flushed: the QP is in the error state (disconnect or an earlier
     * error).
     */
    WR_FLUSH_ERR(5, "work request flushed: the QP is in the error state (disconnect or an earlier error)"),
    /** {@code IBV_WC_MW_BIND_ERR} (6): memory window bind error. */
    MW_BIND_ERR(6, "memory window bind error"),
    /** {@code IBV_WC_BAD_RESP_ERR} (7): bad response from the responder. */
    BAD_RESP_ERR(7, "bad response from the responder"),
    /** {@code IBV_WC_LOC_ACCESS_ERR} (8): local access error. */
    LOC_ACCESS_ERR(8, "local access error"),
    /**
     * {@code IBV_WC_REM_INV_REQ_ERR} (9): remote invalid request: the peer's receive buffer is too small or the
     * operation is invalid.
     */
    REM_INV_REQ_ERR(9, "remote invalid request: the peer's receive buffer is too small or the operation is invalid"),
    /** {@code IBV_WC_REM_ACCESS_ERR} (10): remote access error: bad rkey, address range or access rights. */
    REM_ACCESS_ERR(10, "remote access error: bad rkey, address range or access rights"),
    /** {@code IBV_WC_REM_OP_ERR} (11): remote operation error. */
    REM_OP_ERR(11, "remote operation error"),
    /** {@code IBV_WC_RETRY_EXC_ERR} (12): transport retry counter exceeded: the peer does not answer. */
    RETRY_EXC_ERR(12, "transport retry counter exceeded: the peer does not answer"),
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR} (13): RNR retry counter exceeded: the peer posted no receive in time. */
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded: the peer posted no receive in time"),
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR} (14): local RDD violation. */
    LOC_RDD_VIOL_ERR(14, "local RDD violation"),
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR} (15): remote invalid RD request. */
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    /** {@code IBV_WC_REM_ABORT_ERR} (16): remote aborted. */
    REM_ABORT_ERR(16, "remote aborted"),
    /** {@code IBV_WC_INV_EECN_ERR} (17): invalid EE context number. */
    INV_EECN_ERR(17, "invalid EE context number"),
    /** {@code IBV_WC_INV_EEC_STATE_ERR} (18): invalid EE context state. */
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    /** {@code IBV_WC_FATAL_ERR} (19): fatal error. */
    FATAL_ERR(19, "fatal error"),
    /** {@code IBV_WC_RESP_TIMEOUT_ERR} (20): response timeout. */
    RESP_TIMEOUT_ERR(20, "response timeout"),
    /** {@code IBV_WC_GENERAL_ERR} (21): general error. */
    GENERAL_ERR(21, "general error"),
    /** {@code IBV_WC_TM_ERR} (22): tag matching error. */
    TM_ERR(22, "tag matching error"),
    /** {@code IBV_WC_TM_RNDV_INCOMPLETE} (23): tag matching rendezvous incomplete. */
    TM_RNDV_INCOMPLETE(23, "tag matching rendezvous incomplete");

    private static final WcStatus[] BY_CODE = values();

    private final int code;
    private final String description;

    WcStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** {@return the {@code enum ibv_wc_status} value} */
    public int code() {
        return code;
    }

    /** {@return what the status means, for messages} */
    public String description() {
        return description;
    }

    /**
     * The constant for a status value.
     *
     * @param code an {@code enum ibv_wc_status} value
     * @return its constant, or {@link #GENERAL_ERR} for a value this table does not know
     */
    public static WcStatus ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : GENERAL_ERR;
    }
}
