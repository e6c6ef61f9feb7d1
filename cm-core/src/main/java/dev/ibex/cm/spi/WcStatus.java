package dev.ibex.cm.spi;

/** {@code enum ibv_wc_status}. */
public enum WcStatus {
    SUCCESS(0, "success"),
    LOC_LEN_ERR(1, "local length error: the receive buffer is smaller than the message"),
    LOC_QP_OP_ERR(2, "local QP operation error"),
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    LOC_PROT_ERR(4, "local protection error: bad lkey or buffer outside the memory region"),
    WR_FLUSH_ERR(5, "work request flushed: the QP is in the error state (disconnect or an earlier error)"),
    MW_BIND_ERR(6, "memory window bind error"),
    BAD_RESP_ERR(7, "bad response from the responder"),
    LOC_ACCESS_ERR(8, "local access error"),
    REM_INV_REQ_ERR(9, "remote invalid request: the peer's receive buffer is too small or the operation is invalid"),
    REM_ACCESS_ERR(10, "remote access error: bad rkey, address range or access rights"),
    REM_OP_ERR(11, "remote operation error"),
    RETRY_EXC_ERR(12, "transport retry counter exceeded: the peer does not answer"),
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded: the peer posted no receive in time"),
    LOC_RDD_VIOL_ERR(14, "local RDD violation"),
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    REM_ABORT_ERR(16, "remote aborted"),
    INV_EECN_ERR(17, "invalid EE context number"),
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    FATAL_ERR(19, "fatal error"),
    RESP_TIMEOUT_ERR(20, "response timeout"),
    GENERAL_ERR(21, "general error"),
    TM_ERR(22, "tag matching error"),
    TM_RNDV_INCOMPLETE(23, "tag matching rendezvous incomplete");

    private static final WcStatus[] BY_CODE = values();

    private final int code;
    private final String description;

    WcStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    public static WcStatus ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : GENERAL_ERR;
    }
}
