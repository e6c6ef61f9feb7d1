package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;

import java.util.EnumSet;
import java.util.Set;

/** The RC connection state machine (active and passive side). */
final class ConnectionTable {
    enum Action {
        /** Nothing to do (a stale or irrelevant input). */
        NONE,
        /** A command that is invalid in this state: the caller gets {@link IllegalStateException}. */
        REFUSE,
        RESOLVE_ADDR,
        RESOLVE_ROUTE,
        /** Create the QP, post the receive window, {@code rdma_connect}. */
        CONNECT,
        /** Move to the chosen loop, create the QP, post receives, {@code rdma_accept}. */
        ACCEPT,
        /** {@code rdma_reject} with the application's private data, then release. */
        REJECT,
        ESTABLISH,
        /** CONNECT_RESPONSE (an id without a CM-driven QP): move the QP to RTR/RTS, {@code rdma_establish}. */
        ESTABLISH_USER_QP,
        /** Not established yet: report a typed {@code RdmaConnectException}, release everything. */
        FAIL,
        /** The peer disconnected: answer, report, let the flushed work drain. */
        PEER_DISCONNECT,
        /** The application closes: {@code rdma_disconnect}, let the flushed work drain. */
        DISCONNECT,
        /** A fatal error on an established connection: report it, disconnect, drain. */
        BREAK,
        /** The device is gone: report it and release at once. */
        ABORT,
        /** Drained: release everything. */
        FINISH,
        /** The drain did not finish in time, or the device went away: release at once. */
        FORCE,
        /** A hint: the local address moved (bonding failover); the connection stays. */
        ADDRESS_CHANGED,
        /** A CONNECT_REQUEST reached an endpoint that is not listening: reject and destroy its new id. */
        REJECT_REQUEST
    }

    /** States in which the connection waits for an outcome (the deadline is armed). */
    static final Set<ConnectionState> ATTEMPTING = EnumSet.of(ADDR_RESOLVING, ROUTE_RESOLVING, CONNECTING, REQUESTED);

    static final StateTable<ConnectionState, Action> TABLE = build();

    private ConnectionTable() {}

    private static StateTable<ConnectionState, Action> build() {
        StateTable.Builder<ConnectionState, Action> b = StateTable.builder("connection", ConnectionState.class);
        Set<Input> failing = EnumSet.copyOf(Input.CM_ERRORS);
        failing.add(Input.CLOSE);
        failing.add(Input.FATAL);
        for (ConnectionState s : ConnectionState.values()) {
            b.on(s, Input.CONNECT_REQUEST, s, Action.REJECT_REQUEST);
        }

        b.on(IDLE, Input.START, ADDR_RESOLVING, Action.RESOLVE_ADDR)
                .on(IDLE, failing, CLOSED, Action.FAIL)
                .on(IDLE, Input.TIMEOUT, CLOSED, Action.FAIL) // the deadline passed while queued at the gate
                .on(IDLE, EnumSet.of(Input.ACCEPT, Input.REJECT), IDLE, Action.REFUSE)
                .otherwise(IDLE, IDLE, Action.NONE);

        for (ConnectionState s : ATTEMPTING) {
            b.on(s, failing, CLOSED, Action.FAIL)
                    .on(s, Input.TIMEOUT, CLOSED, Action.FAIL)
                    .on(s, Input.START, s, Action.REFUSE);
            if (s != REQUESTED) {
                b.on(s, EnumSet.of(Input.ACCEPT, Input.REJECT), s, Action.REFUSE);
            }
        }
        b.on(ADDR_RESOLVING, Input.ADDR_RESOLVED, ROUTE_RESOLVING, Action.RESOLVE_ROUTE)
                .otherwise(ADDR_RESOLVING, ADDR_RESOLVING, Action.NONE);
        b.on(ROUTE_RESOLVING, Input.ROUTE_RESOLVED, CONNECTING, Action.CONNECT)
                .otherwise(ROUTE_RESOLVING, ROUTE_RESOLVING, Action.NONE);
        b.on(CONNECTING, Input.ESTABLISHED, ESTABLISHED, Action.ESTABLISH)
                .on(CONNECTING, Input.CONNECT_RESPONSE, ESTABLISHED, Action.ESTABLISH_USER_QP)
                .otherwise(CONNECTING, CONNECTING, Action.NONE);
        b.on(REQUESTED, Input.ACCEPT, CONNECTING, Action.ACCEPT)
                .on(REQUESTED, Input.REJECT, CLOSED, Action.REJECT)
                .otherwise(REQUESTED, REQUESTED, Action.NONE);

        b.on(ESTABLISHED, Input.DISCONNECTED, DISCONNECTING, Action.PEER_DISCONNECT)
                .on(ESTABLISHED, Input.CLOSE, DISCONNECTING, Action.DISCONNECT)
                .on(ESTABLISHED, EnumSet.of(Input.ADDR_ERROR, Input.ROUTE_ERROR, Input.CONNECT_ERROR,
                        Input.UNREACHABLE, Input.REJECTED, Input.FATAL), DISCONNECTING, Action.BREAK)
                .on(ESTABLISHED, Input.DEVICE_REMOVAL, CLOSED, Action.ABORT)
                .on(ESTABLISHED, Input.ADDR_CHANGE, ESTABLISHED, Action.ADDRESS_CHANGED)
                .on(ESTABLISHED, EnumSet.of(Input.START, Input.ACCEPT, Input.REJECT), ESTABLISHED, Action.REFUSE)
                .otherwise(ESTABLISHED, ESTABLISHED, Action.NONE);

        b.on(DISCONNECTING, Input.DRAINED, CLOSED, Action.FINISH)
                .on(DISCONNECTING, EnumSet.of(Input.TIMEOUT, Input.DEVICE_REMOVAL), CLOSED, Action.FORCE)
                .on(DISCONNECTING, EnumSet.of(Input.START, Input.ACCEPT, Input.REJECT), DISCONNECTING, Action.REFUSE)
                .otherwise(DISCONNECTING, DISCONNECTING, Action.NONE);

        b.on(CLOSED, EnumSet.of(Input.START, Input.ACCEPT, Input.REJECT), CLOSED, Action.REFUSE)
                .otherwise(CLOSED, CLOSED, Action.NONE)
                .terminal(CLOSED);
        return b.build();
    }
}
