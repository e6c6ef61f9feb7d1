package dev.ibex.cm.endpoint;

import java.time.Duration;

/**
 * How a {@link Listener} listens.
 *
 * @param backlog {@code rdma_listen} backlog
 * @param requestTimeout how long a request may wait for accept/reject before it is rejected
 * @param childrenOnListenerLoop keep accepted connections on the listener's loop instead of spreading them
 *     round-robin over the group
 * @param connection options of the accepted connections
 */
public record ListenOptions(int backlog, Duration requestTimeout, boolean childrenOnListenerLoop,
        ConnectionOptions connection) {
    public static final ListenOptions DEFAULT = new ListenOptions(128, Duration.ofSeconds(10), false,
            ConnectionOptions.DEFAULT);

    public ListenOptions {
        if (backlog <= 0 || requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()
                || connection == null) {
            throw new IllegalArgumentException("backlog and requestTimeout must be positive, connection options set");
        }
    }

    public ListenOptions withRequestTimeout(Duration d) {
        return new ListenOptions(backlog, d, childrenOnListenerLoop, connection);
    }

    public ListenOptions withChildrenOnListenerLoop(boolean on) {
        return new ListenOptions(backlog, requestTimeout, on, connection);
    }

    public ListenOptions withConnection(ConnectionOptions c) {
        return new ListenOptions(backlog, requestTimeout, childrenOnListenerLoop, c);
    }
}
