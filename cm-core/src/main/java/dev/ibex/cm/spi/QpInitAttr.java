package dev.ibex.cm.spi;

/**
 * {@code struct ibv_qp_init_attr}.
 *
 * @param srq the shared receive queue, or {@code null}
 * @param signalAll {@code sq_sig_all}: every send WR completes; otherwise only {@link SendFlags#SIGNALED} ones
 * @param context the QP's user context
 */
public record QpInitAttr(CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, QpCap cap,
        QpType type, boolean signalAll, Object context) {
    public QpInitAttr {
        if (sendCq == null || recvCq == null || cap == null || type == null) {
            throw new IllegalArgumentException("sendCq, recvCq, cap and type are required");
        }
    }
}
