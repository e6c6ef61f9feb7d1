package dev.ibex.softroce.mad;

/** APR status ({@code enum ib_cm_apr_status}). */
public enum ApStatus {
    SUCCESS,
    INVALID_COMM_ID,
    UNSUPPORTED,
    REJECT,
    REDIRECT,
    /** The LAP named the path already in use as primary. */
    IS_CURRENT,
    INVALID_QPN_EECN,
    INVALID_LID,
    INVALID_GID,
    INVALID_FLOW_LABEL,
    INVALID_TCLASS,
    INVALID_HOP_LIMIT,
    INVALID_PACKET_RATE,
    INVALID_SL;

    /** The 8-bit wire value. */
    public int code() {
        return ordinal();
    }

    /** The status with this value, or {@code null}. */
    public static ApStatus of(int code) {
        return code >= 0 && code < values().length ? values()[code] : null;
    }
}
