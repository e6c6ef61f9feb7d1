package dev.ibex.cm.spi;

/**
 * {@code struct ibv_qp_cap}: queue sizes.
 *
 * @param maxSendWr outstanding send-queue work requests
 * @param maxRecvWr outstanding receives (ignored with an SRQ)
 * @param maxSendSge scatter/gather entries per send WR
 * @param maxRecvSge scatter/gather entries per receive
 * @param maxInlineData the largest payload in bytes a send may carry inline
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    /**
     * Checks the capacities.
     *
     * @throws IllegalArgumentException when one is negative
     */
    public QpCap {
        if (maxSendWr < 0 || maxRecvWr < 0 || maxSendSge < 0 || maxRecvSge < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("QP capacities must not be negative: " + this);
        }
    }
}
