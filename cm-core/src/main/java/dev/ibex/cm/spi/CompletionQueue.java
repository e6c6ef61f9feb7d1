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

    /** {@return the number of entries (at least what was asked for)} */
    int capacity();

    /** {@return the channel it notifies, or {@code null}} */
    CompletionChannel channel();

    /** {@return the user attachment (the framework keeps its per-CQ state here)} */
    Object context();

    /**
     * Sets the user attachment.
     *
     * @param context what {@link #context()} returns from now on, or {@code null}
     */
    void context(Object context);

    /**
     * {@code ibv_poll_cq}: moves up to {@code batch.capacity()} completions into {@code batch} starting at
     * index 0. Allocates nothing.
     *
     * @param batch where the completions go
     * @return the number of completions written
     */
    int poll(CompletionBatch batch);

    /**
     * {@code ibv_req_notify_cq}: arms for one notification on {@link #channel()}.
     *
     * @param solicitedOnly notify only for a solicited receive (or an error), not every completion
     */
    void requestNotify(boolean solicitedOnly);

    /**
     * {@code ibv_ack_cq_events}.
     *
     * @throws IllegalArgumentException when acknowledging more events than were received (that would make
     *     {@code ibv_destroy_cq} wait forever)
     * @param count how many of the events taken from the channel to acknowledge
     */
    void ackEvents(int count);
}
