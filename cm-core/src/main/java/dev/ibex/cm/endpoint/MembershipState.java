package dev.ibex.cm.endpoint;

/** The states of a multicast {@link Membership}. */
public enum MembershipState {
    /** {@code rdma_join_multicast} issued. */
    JOINING,
    /** Joined: the group's address handle exists; sending (and, unless send-only, receiving) works. */
    JOINED,
    /** Left, failed or cancelled. */
    LEFT
}
