package dev.ibex.cm.reactive;

/**
 * Observes every {@link ConnectionEvent} of the connections a server accepts or a client opens (the reactor-netty
 * {@code ConnectionObserver} idea, on RDMA's events). Called on the connection's event loop: it must not block.
 */
@FunctionalInterface
public interface ConnectionObserver {

    /** The observer that ignores everything. */
    ConnectionObserver NONE = (connection, event) -> {};

    void onEvent(RdmaConnection connection, ConnectionEvent event);

    /** This observer, then {@code next}. */
    default ConnectionObserver then(ConnectionObserver next) {
        if (this == NONE) {
            return next;
        }
        if (next == NONE) {
            return this;
        }
        return (c, e) -> {
            onEvent(c, e);
            next.onEvent(c, e);
        };
    }
}
