package dev.ibex.verbs.ffi.constant;

/**
 * Work completion statuses.
 *
 * <p>Values of {@code enum ibv_wc_status}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvWcStatus {
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;
    public static final int IBV_WC_LOC_EEC_OP_ERR = 3;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_MW_BIND_ERR = 6;
    public static final int IBV_WC_BAD_RESP_ERR = 7;
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_REM_OP_ERR = 11;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    public static final int IBV_WC_LOC_RDD_VIOL_ERR = 14;
    public static final int IBV_WC_REM_INV_RD_REQ_ERR = 15;
    public static final int IBV_WC_REM_ABORT_ERR = 16;
    public static final int IBV_WC_INV_EECN_ERR = 17;
    public static final int IBV_WC_INV_EEC_STATE_ERR = 18;
    public static final int IBV_WC_FATAL_ERR = 19;
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;
    public static final int IBV_WC_GENERAL_ERR = 21;
    public static final int IBV_WC_TM_ERR = 22;
    public static final int IBV_WC_TM_RNDV_INCOMPLETE = 23;

    private IbvWcStatus() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvWcStatus.class, value);
    }
}
