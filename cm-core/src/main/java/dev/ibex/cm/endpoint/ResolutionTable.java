package dev.ibex.cm.endpoint;

import java.util.EnumSet;
import java.util.Set;

/**
 * SIDR resolution of a remote UD service (active side) and a SIDR request (passive side): the UD counterpart of
 * the connection's setup. {@code RESOLVING} waits for the SIDR answer (ESTABLISHED with UD parameters, or
 * UNREACHABLE with the SIDR status).
 */
final class ResolutionTable {
    enum State { IDLE, ADDR_RESOLVING, ROUTE_RESOLVING, RESOLVING, REQUESTED, CLOSED }

    enum Action { NONE, REFUSE, RESOLVE_ADDR, RESOLVE_ROUTE, CONNECT, RESOLVED, ACCEPT, REJECT, FAIL, REJECT_REQUEST }

    static final Set<State> WAITING = EnumSet.of(State.ADDR_RESOLVING, State.ROUTE_RESOLVING, State.RESOLVING,
            State.REQUESTED);

    static final StateTable<State, Action> TABLE = build();

    private ResolutionTable() {}

    private static StateTable<State, Action> build() {
        StateTable.Builder<State, Action> b = StateTable.builder("resolution", State.class);
        Set<Input> failing = EnumSet.copyOf(Input.CM_ERRORS);
        failing.add(Input.CLOSE);
        failing.add(Input.FATAL);
        for (State s : State.values()) {
            b.on(s, Input.CONNECT_REQUEST, s, Action.REJECT_REQUEST);
        }
        b.on(State.IDLE, Input.START, State.ADDR_RESOLVING, Action.RESOLVE_ADDR)
                .on(State.IDLE, failing, State.CLOSED, Action.FAIL)
                .on(State.IDLE, EnumSet.of(Input.ACCEPT, Input.REJECT), State.IDLE, Action.REFUSE)
                .otherwise(State.IDLE, State.IDLE, Action.NONE);
        for (State s : WAITING) {
            b.on(s, failing, State.CLOSED, Action.FAIL).on(s, Input.TIMEOUT, State.CLOSED, Action.FAIL)
                    .on(s, Input.START, s, Action.REFUSE);
            if (s != State.REQUESTED) {
                b.on(s, EnumSet.of(Input.ACCEPT, Input.REJECT), s, Action.REFUSE);
            }
        }
        b.on(State.ADDR_RESOLVING, Input.ADDR_RESOLVED, State.ROUTE_RESOLVING, Action.RESOLVE_ROUTE)
                .otherwise(State.ADDR_RESOLVING, State.ADDR_RESOLVING, Action.NONE);
        b.on(State.ROUTE_RESOLVING, Input.ROUTE_RESOLVED, State.RESOLVING, Action.CONNECT)
                .otherwise(State.ROUTE_RESOLVING, State.ROUTE_RESOLVING, Action.NONE);
        b.on(State.RESOLVING, Input.ESTABLISHED, State.CLOSED, Action.RESOLVED)
                .otherwise(State.RESOLVING, State.RESOLVING, Action.NONE);
        b.on(State.REQUESTED, Input.ACCEPT, State.CLOSED, Action.ACCEPT)
                .on(State.REQUESTED, Input.REJECT, State.CLOSED, Action.REJECT)
                .otherwise(State.REQUESTED, State.REQUESTED, Action.NONE);
        b.on(State.CLOSED, EnumSet.of(Input.START, Input.ACCEPT, Input.REJECT), State.CLOSED, Action.REFUSE)
                .otherwise(State.CLOSED, State.CLOSED, Action.NONE)
                .terminal(State.CLOSED);
        return b.build();
    }
}
