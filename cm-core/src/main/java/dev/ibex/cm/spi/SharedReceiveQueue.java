package dev.ibex.cm.spi;

/**
 * {@code struct ibv_srq}. Closing fails while QPs use it, as in verbs. The limit event
 * ({@link AsyncEventType#SRQ_LIMIT_REACHED}) is one-shot: re-arm with {@link #modify}.
 */
public interface SharedReceiveQueue extends ResourceTracker.Tracked {
    /** {@code IBV_SRQ_MAX_WR}: the {@link #modify} mask bit that resizes the queue. */
    int MAX_WR = 1;
    /** {@code IBV_SRQ_LIMIT}: the {@link #modify} mask bit that arms the limit event. */
    int LIMIT = 1 << 1;

    @Override
    default ResourceKind kind() {
        return ResourceKind.SHARED_RECEIVE_QUEUE;
    }

    /** {@return the protection domain the SRQ was created in} */
    ProtectionDomain pd();

    /** {@return the user context ({@code ibv_srq.srq_context}): the framework's loop device} */
    Object context();

    /**
     * Sets the user context.
     *
     * @param context what {@link #context()} returns from now on, or {@code null}
     */
    void context(Object context);

    /**
     * {@code ibv_post_srq_recv} of WRs 0..count-1.
     *
     * @param batch the receive WRs
     * @param count how many of them to post, from WR 0
     * @throws PostException when a WR is refused (e.g. the queue is full); earlier WRs were posted
     */
    void postRecv(RecvBatch batch, int count);

    /**
     * {@code ibv_modify_srq}: {@link #MAX_WR} resizes (if the device can), {@link #LIMIT} arms the limit event.
     *
     * @param maxWr the new capacity in receives (with {@link #MAX_WR})
     * @param srqLimit raise {@code SRQ_LIMIT_REACHED} once fewer receives than this are posted (with {@link #LIMIT})
     * @param mask which of the two to change
     */
    void modify(int maxWr, int srqLimit, int mask);

    /** {@return the SRQ's attributes ({@code ibv_query_srq}); a limit of 0 means the limit event is not armed} */
    SrqAttr query();

    /**
     * {@code struct ibv_srq_attr}.
     *
     * @param maxWr the capacity in receives
     * @param maxSge scatter/gather entries per receive
     * @param srqLimit the armed limit, 0 when the limit event is not armed
     */
    record SrqAttr(int maxWr, int maxSge, int srqLimit) {}
}
