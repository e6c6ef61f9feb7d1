package dev.ibex.cm.endpoint;

import java.time.Duration;

/**
 * How a {@link Listener} listens.
 *
 * @param backlog {@code rdma_listen} backlog: requests the provider holds for the loop to take; beyond it they are
 *     dropped silently (as the kernel's rdma_cm does) and asked again only after the CM response timeout (4.3 s).
 *     The default equals the default {@code maxHalfOpen}, so what bounds a burst is the half-open limit, whose REJ
 *     the reactive client asks again at once, not a silent drop while the loop is busy
 * @param requestTimeout how long a request may wait for accept/reject before it is rejected
 * @param childrenOnListenerLoop keep accepted connections on the listener's loop instead of spreading them
 *     round-robin over the group
 * @param connection options of the accepted connections
 * @param maxHalfOpen connections requested or accepted but not yet established, in all: beyond it requests are
 *     refused at once (REJ, {@link dev.ibex.cm.RejectReason#OVERLOADED}); see {@link HalfOpen}
 * @param maxHalfOpenPerSource the same, per source address: a flood from one address cannot take them all
 */
public record ListenOptions(int backlog, Duration requestTimeout, boolean childrenOnListenerLoop,
        ConnectionOptions connection, int maxHalfOpen, int maxHalfOpenPerSource) {
    /**
     * Backlog 1024, requests answered within 10 s, connections spread over the group, at most 1024 half-open (64 per
     * source).
     */
    public static final ListenOptions DEFAULT = new ListenOptions(1024, Duration.ofSeconds(10), false,
            ConnectionOptions.DEFAULT, 1024, 64);

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException when the backlog, the request timeout or a half-open bound is not positive,
     *     or the connection options are missing
     */
    public ListenOptions {
        if (backlog <= 0 || requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()
                || connection == null) {
            throw new IllegalArgumentException("backlog and requestTimeout must be positive, connection options set");
        }
        if (maxHalfOpen <= 0 || maxHalfOpenPerSource <= 0) {
            throw new IllegalArgumentException("half-open bounds must be positive, got " + maxHalfOpen + "/"
                    + maxHalfOpenPerSource);
        }
    }

    /**
     * A copy with another backlog.
     *
     * @param n the {@code rdma_listen} backlog, positive
     * @return the new options
     */
    public ListenOptions withBacklog(int n) {
        return new ListenOptions(n, requestTimeout, childrenOnListenerLoop, connection, maxHalfOpen,
                maxHalfOpenPerSource);
    }

    /**
     * A copy with another request timeout.
     *
     * @param d how long a request may wait for an answer, positive
     * @return the new options
     */
    public ListenOptions withRequestTimeout(Duration d) {
        return new ListenOptions(backlog, d, childrenOnListenerLoop, connection, maxHalfOpen, maxHalfOpenPerSource);
    }

    /**
     * A copy that keeps accepted connections on the listener's loop, or spreads them. Spreading (the default) puts
     * the connections' data path on all the group's loops, but on the rdma-core provider each connection moved off
     * the listener's loop costs an {@code rdma_migrate_id} and work on a second thread: a server bound by how fast it
     * accepts keeps them on the listener's loop (docs/benchmarks.md, "The rdma_migrate_id trade-off").
     *
     * @param on whether accepted connections stay on the listener's loop
     * @return the new options
     */
    public ListenOptions withChildrenOnListenerLoop(boolean on) {
        return new ListenOptions(backlog, requestTimeout, on, connection, maxHalfOpen, maxHalfOpenPerSource);
    }

    /**
     * A copy with other options for accepted connections.
     *
     * @param c options of the accepted connections
     * @return the new options
     */
    public ListenOptions withConnection(ConnectionOptions c) {
        return new ListenOptions(backlog, requestTimeout, childrenOnListenerLoop, c, maxHalfOpen, maxHalfOpenPerSource);
    }

    /**
     * Half-open bounds: in all and per source address.
     *
     * @param max half-open connections in all, positive
     * @param perSource half-open connections per source address, positive
     * @return the new options
     */
    public ListenOptions withHalfOpen(int max, int perSource) {
        return new ListenOptions(backlog, requestTimeout, childrenOnListenerLoop, connection, max, perSource);
    }
}
