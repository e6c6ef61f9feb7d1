package dev.ibex.cm.spi;

/**
 * {@code struct ibv_srq}. Closing fails while QPs use it, as in verbs. The limit event
 * ({@link AsyncEventType#SRQ_LIMIT_REACHED}) is one-shot: re-arm with {@link #modify}.
 */
public interface SharedReceiveQueue extends ResourceTracker.Tracked {
    int MAX_WR = 1;
    int LIMIT = 1 << 1;

    @Override
    default ResourceKind kind() {
        return ResourceKind.SHARED_RECEIVE_QUEUE;
    }

    ProtectionDomain pd();

    Object context();

    void context(Object context);

    /** {@code ibv_post_srq_recv} of WRs 0..count-1. */
    void postRecv(RecvBatch batch, int count);

    /** {@code ibv_modify_srq}: {@link #MAX_WR} resizes (if the device can), {@link #LIMIT} arms the limit event. */
    void modify(int maxWr, int srqLimit, int mask);

    /** {@code ibv_query_srq}; a limit of 0 means the limit event is not armed. */
    SrqAttr query();

    record SrqAttr(int maxWr, int maxSge, int srqLimit) {}
}
