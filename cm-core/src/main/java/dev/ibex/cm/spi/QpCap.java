package dev.ibex.cm.spi;

/** {@code struct ibv_qp_cap}: queue sizes. */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    public QpCap {
        if (maxSendWr < 0 || maxRecvWr < 0 || maxSendSge < 0 || maxRecvSge < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("QP capacities must not be negative: " + this);
        }
    }
}
