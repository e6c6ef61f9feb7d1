package dev.ibex.cm.spi;

/**
 * {@code struct ibv_comp_channel}: where armed CQs report that completions arrived. Confined to its event
 * loop (except close). The reader follows the arm-then-poll discipline: on readiness take events with
 * {@link #poll()} until {@code null}, count them per CQ and {@link CompletionQueue#ackEvents ack} in batches,
 * re-arm ({@link CompletionQueue#requestNotify}), then poll the CQ until it is empty.
 */
public interface CompletionChannel extends EventSource, ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.COMPLETION_CHANNEL;
    }

    /**
     * {@code ibv_get_cq_event} (non-blocking). The CQ is now disarmed.
     *
     * @return the CQ that fired, or {@code null} when no event is pending
     */
    CompletionQueue poll();
}
