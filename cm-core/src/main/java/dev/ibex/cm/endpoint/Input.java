package dev.ibex.cm.endpoint;

import dev.ibex.cm.spi.CmEventType;
import java.util.EnumSet;
import java.util.Set;

/**
 * What drives an endpoint's state machine: the sixteen CM events (same order as {@link CmEventType}), the
 * application's commands and the endpoint's own internal signals.
 */
enum Input {
    ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE, CONNECT_ERROR,
    UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR, ADDR_CHANGE,
    TIMEWAIT_EXIT,
    /** The application starts the endpoint (connect, listen, bind, join, resolve). */
    START,
    /** The application accepts a request. */
    ACCEPT,
    /** The application rejects a request. */
    REJECT,
    /** The application (or the group) closes the endpoint. */
    CLOSE,
    /** The endpoint's deadline passed (connect, accept, join, drain). */
    TIMEOUT,
    /** Every posted work request has completed (or was flushed) after a disconnect. */
    DRAINED,
    /** A fatal completion or QP/CQ/device async event. */
    FATAL;

    private static final Input[] BY_EVENT = values();

    static Input of(CmEventType t) {
        return BY_EVENT[t.ordinal()];
    }

    /** CM events that end a connection attempt (or, once connected, the connection) with an error. */
    static final Set<Input> CM_ERRORS = EnumSet.of(ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED,
            DISCONNECTED, DEVICE_REMOVAL, ADDR_CHANGE);

    /** The commands an application can issue. */
    static final Set<Input> COMMANDS = EnumSet.of(START, ACCEPT, REJECT, CLOSE);

    boolean isCmEvent() {
        return ordinal() <= TIMEWAIT_EXIT.ordinal();
    }
}
