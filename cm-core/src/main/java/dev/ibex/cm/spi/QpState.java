package dev.ibex.cm.spi;

/** {@code enum ibv_qp_state}. */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    public int code() {
        return ordinal();
    }

    public static QpState ofCode(int code) {
        return values()[code];
    }
}
