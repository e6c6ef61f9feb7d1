package dev.ibex.cm.endpoint;

/**
 * The states of a {@link Connection}. Active: IDLE → ADDR_RESOLVING → ROUTE_RESOLVING → CONNECTING → ESTABLISHED →
 * DISCONNECTING → CLOSED. Passive: REQUESTED (until accepted or rejected) → CONNECTING → ESTABLISHED → ….
 */
public enum ConnectionState {
    /** Created, not started. */
    IDLE,
    /** {@code rdma_resolve_addr} issued. */
    ADDR_RESOLVING,
    /** {@code rdma_resolve_route} issued. */
    ROUTE_RESOLVING,
    /** {@code rdma_connect} (active) or {@code rdma_accept} (passive) issued, waiting for ESTABLISHED. */
    CONNECTING,
    /** A connection request waiting for the application to accept or reject it. */
    REQUESTED,
    /** Connected: data may flow. */
    ESTABLISHED,
    /** Disconnected (by either side); waiting for the outstanding work requests to flush. */
    DISCONNECTING,
    /** Everything released. */
    CLOSED
}
