package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.DatagramState.*;

import java.util.EnumSet;

/** The datagram endpoint's state machine. UD has no peer to disconnect from: close releases at once. */
final class DatagramTable {
    enum Action { NONE, REFUSE, BIND, NEW_REQUEST, REJECT_REQUEST, MEMBERSHIP, FAIL, CLOSE }

    static final StateTable<DatagramState, Action> TABLE = build();

    private DatagramTable() {}

    private static StateTable<DatagramState, Action> build() {
        StateTable.Builder<DatagramState, Action> b = StateTable.builder("datagram", DatagramState.class);
        EnumSet<Input> notHere = EnumSet.of(Input.ACCEPT, Input.REJECT);
        b.on(IDLE, Input.START, BOUND, Action.BIND)
                .on(IDLE, Input.CLOSE, CLOSED, Action.CLOSE)
                .on(IDLE, Input.CM_ERRORS, CLOSED, Action.FAIL)
                .on(IDLE, Input.FATAL, CLOSED, Action.FAIL)
                .on(IDLE, Input.CONNECT_REQUEST, IDLE, Action.REJECT_REQUEST)
                .on(IDLE, notHere, IDLE, Action.REFUSE)
                .otherwise(IDLE, IDLE, Action.NONE);
        b.on(BOUND, Input.CONNECT_REQUEST, BOUND, Action.NEW_REQUEST)
                .on(BOUND, EnumSet.of(Input.MULTICAST_JOIN, Input.MULTICAST_ERROR), BOUND, Action.MEMBERSHIP)
                .on(BOUND, EnumSet.of(Input.DEVICE_REMOVAL, Input.FATAL), CLOSED, Action.FAIL)
                .on(BOUND, Input.CLOSE, CLOSED, Action.CLOSE)
                .on(BOUND, Input.START, BOUND, Action.REFUSE)
                .on(BOUND, notHere, BOUND, Action.REFUSE)
                .otherwise(BOUND, BOUND, Action.NONE);
        b.on(CLOSED, Input.CONNECT_REQUEST, CLOSED, Action.REJECT_REQUEST)
                .on(CLOSED, Input.START, CLOSED, Action.REFUSE)
                .on(CLOSED, notHere, CLOSED, Action.REFUSE)
                .otherwise(CLOSED, CLOSED, Action.NONE)
                .terminal(CLOSED);
        return b.build();
    }
}
