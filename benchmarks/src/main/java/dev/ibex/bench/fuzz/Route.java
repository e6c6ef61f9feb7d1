package dev.ibex.bench.fuzz;

/**
 * How a hostile packet reaches its victim, and so what the victim owes it. Only the two on-path routes carry a
 * connection's exact (IP address, UDP port) pair; every other packet must be dropped and counted whatever it says.
 */
public enum Route {
    /** A UDP socket on an address no fabric uses ({@code 127.0.0.9}), an ephemeral port. Off the path. */
    FOREIGN_ADDRESS(false),
    /** A UDP socket on the peer's own address but another port. Off the path. */
    PEER_OTHER_PORT(false),
    /**
     * A UDP socket on an address no fabric uses, from the fabric's own UDP port: reaches the CM, which must drop
     * messages for a connection that do not come from its peer. Off the path; CM messages only.
     */
    FOREIGN_CM_PORT(false),
    /** Sent from the peer's own device link: the exact path, through the victim's whole receive path. */
    ON_PATH_WIRE(true),
    /** Handed to the victim QP in process ({@code SoftQueuePair.deliver}) as if from its path. */
    ON_PATH_DELIVER(true);

    private final boolean onPath;

    Route(boolean onPath) {
        this.onPath = onPath;
    }

    /** Whether the packet comes from the connection's exact path (and so may end that connection). */
    public boolean onPath() {
        return onPath;
    }
}
