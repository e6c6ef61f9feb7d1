package dev.ibex.cm.spi;

/**
 * {@code struct ibv_qp_init_attr}.
 *
 * @param sendCq the CQ for send-queue completions
 * @param recvCq the CQ for receive completions
 * @param srq the shared receive queue, or {@code null}
 * @param cap the queue sizes asked for
 * @param type the transport type
 * @param signalAll {@code sq_sig_all}: every send WR completes; otherwise only {@link SendFlags#SIGNALED} ones
 * @param context the QP's user context
 */
public record QpInitAttr(CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, QpCap cap,
        QpType type, boolean signalAll, Object context) {
    /**
     * Checks the required attributes.
     *
     * @throws IllegalArgumentException when {@code sendCq}, {@code recvCq}, {@code cap} or {@code type} is null
     */
    public QpInitAttr {
        if (sendCq == null || recvCq == null || cap == null || type == null) {
            throw new IllegalArgumentException("sendCq, recvCq, cap and type are required");
        }
    }
}
