package dev.ibex.softroce.mad;

/** The "Message MRAed" field of an MRA and the "Message Rejected" field of a REJ (2 bits; 3 is reserved). */
public enum CmMessageKind {
    REQ, REP, OTHER;

    /** The 2-bit wire value. */
    public int code() {
        return ordinal();
    }

    /** The kind with this value, or {@code null} for the reserved value 3. */
    public static CmMessageKind of(int code) {
        return code >= 0 && code <= 2 ? values()[code] : null;
    }
}
