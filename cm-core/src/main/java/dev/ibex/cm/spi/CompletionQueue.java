package dev.ibex.cm.spi;

/**
 * {@code struct ibv_cq}. Confined to one thread (its event loop) except close. Closing settles unacknowledged
 * notifications first, so it never hangs the way {@code ibv_destroy_cq} does when events are left unacked.
 */
public interface CompletionQueue extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.COMPLETION_QUEUE;
    }

    /** The number of entries (at least what was asked for). */
    int capacity();

    /** The channel it notifies, or {@code null}. */
    CompletionChannel channel();

    /** User attachment (the framework keeps its per-CQ state here). */
    Object context();

    void context(Object context);

    /**
     * {@code ibv_poll_cq}: moves up to {@code batch.capacity()} completions into {@code batch} starting at
     * index 0. Allocates nothing.
     *
     * @return the number of completions written
     */
    int poll(CompletionBatch batch);

    /** {@code ibv_req_notify_cq}: arms for one notification. */
    void requestNotify(boolean solicitedOnly);

    /**
     * {@code ibv_ack_cq_events}.
     *
     * @throws IllegalArgumentException when acknowledging more events than were received (that would make
     *     {@code ibv_destroy_cq} wait forever)
     */
    void ackEvents(int count);
}
