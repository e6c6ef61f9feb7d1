package dev.ibex.softroce.mad;

/** SIDR_REP status ({@code enum ib_cm_sidr_status}). */
public enum SidrStatus {
    SUCCESS,
    /** Also what a SIDR_REQ to a service ID without a listener gets. */
    UNSUPPORTED,
    /** {@code rdma_reject} on a UD id. */
    REJECT,
    NO_QP,
    REDIRECT,
    UNSUPPORTED_VERSION;

    /** The 8-bit wire value. */
    public int code() {
        return ordinal();
    }

    /** The status with this value, or {@code null}. */
    public static SidrStatus of(int code) {
        return code >= 0 && code < values().length ? values()[code] : null;
    }
}
