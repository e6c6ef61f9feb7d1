package dev.ibex.cm.spi;

/**
 * A device async event, copied and acknowledged by the provider. Exactly one of {@code qp}, {@code cq},
 * {@code srq} is set for affiliated events; {@code port} for port events.
 */
public record AsyncEvent(AsyncEventType type, DeviceContext device, QueuePair qp, CompletionQueue cq,
        SharedReceiveQueue srq, int port) {}
