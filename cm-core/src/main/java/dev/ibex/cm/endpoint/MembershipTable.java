package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.MembershipState.*;

import java.util.EnumSet;

/** The multicast membership state machine; its CM events arrive through the datagram's id. */
final class MembershipTable {
    enum Action { NONE, REFUSE, JOIN, JOINED, FAIL, LEAVE }

    static final StateTable<MembershipState, Action> TABLE = build();

    private MembershipTable() {}

    private static StateTable<MembershipState, Action> build() {
        StateTable.Builder<MembershipState, Action> b = StateTable.builder("membership", MembershipState.class);
        EnumSet<Input> ending = EnumSet.of(Input.MULTICAST_ERROR, Input.DEVICE_REMOVAL, Input.FATAL);
        EnumSet<Input> notHere = EnumSet.of(Input.ACCEPT, Input.REJECT);
        b.on(JOINING, Input.START, JOINING, Action.JOIN)
                .on(JOINING, Input.MULTICAST_JOIN, JOINED, Action.JOINED)
                .on(JOINING, ending, LEFT, Action.FAIL)
                .on(JOINING, Input.TIMEOUT, LEFT, Action.FAIL)
                .on(JOINING, Input.CLOSE, LEFT, Action.LEAVE) // leaving before the join completes cancels it
                .on(JOINING, notHere, JOINING, Action.REFUSE)
                .otherwise(JOINING, JOINING, Action.NONE);
        b.on(JOINED, ending, LEFT, Action.FAIL) // MULTICAST_ERROR later: the group is lost, rejoin if needed
                .on(JOINED, Input.CLOSE, LEFT, Action.LEAVE)
                .on(JOINED, Input.START, JOINED, Action.REFUSE)
                .on(JOINED, notHere, JOINED, Action.REFUSE)
                .otherwise(JOINED, JOINED, Action.NONE);
        b.on(LEFT, Input.START, LEFT, Action.REFUSE)
                .on(LEFT, notHere, LEFT, Action.REFUSE)
                .otherwise(LEFT, LEFT, Action.NONE)
                .terminal(LEFT);
        return b.build();
    }
}
