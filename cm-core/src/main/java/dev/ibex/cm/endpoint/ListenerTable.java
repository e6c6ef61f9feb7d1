package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ListenerState.*;

import java.util.EnumSet;

/** The listener state machine. Requests become {@link Connection}s in REQUESTED. */
final class ListenerTable {
    enum Action { NONE, REFUSE, LISTEN, NEW_REQUEST, REJECT_REQUEST, FAIL, CLOSE, ADDRESS_CHANGED }

    static final StateTable<ListenerState, Action> TABLE = build();

    private ListenerTable() {}

    private static StateTable<ListenerState, Action> build() {
        StateTable.Builder<ListenerState, Action> b = StateTable.builder("listener", ListenerState.class);
        EnumSet<Input> notForListeners = EnumSet.of(Input.ACCEPT, Input.REJECT);
        b.on(IDLE, Input.START, LISTENING, Action.LISTEN)
                .on(IDLE, Input.CLOSE, CLOSED, Action.CLOSE)
                .on(IDLE, Input.CM_ERRORS, CLOSED, Action.FAIL)
                .on(IDLE, Input.FATAL, CLOSED, Action.FAIL)
                .on(IDLE, Input.CONNECT_REQUEST, IDLE, Action.REJECT_REQUEST)
                .on(IDLE, notForListeners, IDLE, Action.REFUSE)
                .otherwise(IDLE, IDLE, Action.NONE);
        // a listener waits for nothing: only device removal ends it; other CM errors concern connections
        b.on(LISTENING, Input.CONNECT_REQUEST, LISTENING, Action.NEW_REQUEST)
                .on(LISTENING, Input.DEVICE_REMOVAL, CLOSED, Action.FAIL)
                .on(LISTENING, Input.FATAL, CLOSED, Action.FAIL)
                .on(LISTENING, Input.ADDR_CHANGE, LISTENING, Action.ADDRESS_CHANGED)
                .on(LISTENING, Input.CLOSE, CLOSED, Action.CLOSE)
                .on(LISTENING, Input.START, LISTENING, Action.REFUSE)
                .on(LISTENING, notForListeners, LISTENING, Action.REFUSE)
                .otherwise(LISTENING, LISTENING, Action.NONE);
        b.on(CLOSED, Input.CONNECT_REQUEST, CLOSED, Action.REJECT_REQUEST)
                .on(CLOSED, Input.START, CLOSED, Action.REFUSE)
                .on(CLOSED, notForListeners, CLOSED, Action.REFUSE)
                .otherwise(CLOSED, CLOSED, Action.NONE)
                .terminal(CLOSED);
        return b.build();
    }
}
