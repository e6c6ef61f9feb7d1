package dev.ibex.cm.spi;

/**
 * A device async event, copied and acknowledged by the provider. Exactly one of {@code qp}, {@code cq},
 * {@code srq} is set for affiliated events; {@code port} for port events.
 *
 * @param type what happened
 * @param device the device the event came from
 * @param qp the affected QP, or {@code null}
 * @param cq the affected CQ, or {@code null}
 * @param srq the affected SRQ, or {@code null}
 * @param port the affected port for port events, else 0
 */
public record AsyncEvent(AsyncEventType type, DeviceContext device, QueuePair qp, CompletionQueue cq,
        SharedReceiveQueue srq, int port) {}
