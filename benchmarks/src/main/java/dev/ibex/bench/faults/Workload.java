package dev.ibex.bench.faults;

/** The traffic a matrix cell keeps in flight while its fault strikes. */
public enum Workload {
    /** RC SEND/RECV echo of {@link Sequenced} messages (1 to 3 packets each). */
    RC_SEND("RC send/recv"),
    /** RDMA WRITE with immediate into a registered region, each checked and acknowledged by the server. */
    RDMA_WRITE("RDMA WRITE"),
    /** RDMA READ of records the server wrote once. */
    RDMA_READ("RDMA READ"),
    /** FETCH_AND_ADD on a remote counter: the values returned must be 0, 1, 2 … */
    ATOMIC("atomics"),
    /** UD datagrams to a service resolved with SIDR. */
    UD("UD"),
    /** UD datagrams to a multicast group. */
    MULTICAST("multicast");

    private final String title;

    Workload(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }

    /** Whether it is unreliable datagrams (loss is accounted for, not recovered). */
    public boolean datagram() {
        return this == UD || this == MULTICAST;
    }

    /** The {@link RegionClient} kind for the one-sided workloads, {@link EchoClient#KIND} for send/recv. */
    int streamKind() {
        return switch (this) {
            case RDMA_WRITE -> RegionClient.WRITE;
            case RDMA_READ -> RegionClient.READ;
            case ATOMIC -> RegionClient.ATOMIC;
            default -> EchoClient.KIND;
        };
    }
}
