package dev.ibex.cm.reactive;

/**
 * Observes every {@link ConnectionEvent} of the connections a server accepts or a client opens (the reactor-netty
 * {@code ConnectionObserver} idea, on RDMA's events). Called on the connection's event loop: it must not block.
 */
@FunctionalInterface
public interface ConnectionObserver {

    /** The observer that ignores everything. */
    ConnectionObserver NONE = (connection, event) -> {};

    /**
     * Called with each event of each observed connection, on that connection's loop; an exception it throws is logged
     * and
     * does not reach the connection.
     *
     * @param connection the connection the event happened to
     * @param event      what happened
     */
    void onEvent(RdmaConnection connection, ConnectionEvent event);

    /**
     * This observer, then {@code next}.
     *
     * @param next the observer to call after this one
     * @return an observer calling both, in order
     */
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
