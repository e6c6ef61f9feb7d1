package dev.ibex.cm.spi;

/** {@code enum ibv_wr_opcode} values. */
public final class WrOpcode {
    /** {@code IBV_WR_RDMA_WRITE}: write local data into the peer's memory; the peer sees no completion. */
    public static final int RDMA_WRITE = 0;
    /**
     * {@code IBV_WR_RDMA_WRITE_WITH_IMM}: an RDMA WRITE that also consumes a receive at the peer, carrying immediate
     * data.
     */
    public static final int RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}: a message into a receive the peer posted. */
    public static final int SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}: a SEND carrying 32 bits of immediate data. */
    public static final int SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}: read the peer's memory into local buffers. */
    public static final int RDMA_READ = 4;
    /**
     * {@code IBV_WR_ATOMIC_CMP_AND_SWP}: compare the peer's 8 bytes and swap them when equal; the old value comes back.
     */
    public static final int ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}: add to the peer's 8 bytes; the old value comes back. */
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_WR_LOCAL_INV}: invalidate a local memory window's rkey. */
    public static final int LOCAL_INV = 7;
    /** {@code IBV_WR_BIND_MW}: bind a type 2 memory window ({@link SendBatch#bindMw}). */
    public static final int BIND_MW = 8;
    /** {@code IBV_WR_SEND_WITH_INV}: a SEND that also invalidates the rkey of one of the peer's memory windows. */
    public static final int SEND_WITH_INV = 9;

    private WrOpcode() {}

    /**
     * The opcode's name, for messages.
     *
     * @param opcode an {@code enum ibv_wr_opcode} value
     * @return its name, or {@code OPCODE_n} for one this table does not know
     */
    public static String name(int opcode) {
        return switch (opcode) {
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_WRITE_WITH_IMM -> "RDMA_WRITE_WITH_IMM";
            case SEND -> "SEND";
            case SEND_WITH_IMM -> "SEND_WITH_IMM";
            case RDMA_READ -> "RDMA_READ";
            case ATOMIC_CMP_AND_SWP -> "ATOMIC_CMP_AND_SWP";
            case ATOMIC_FETCH_AND_ADD -> "ATOMIC_FETCH_AND_ADD";
            case LOCAL_INV -> "LOCAL_INV";
            case BIND_MW -> "BIND_MW";
            case SEND_WITH_INV -> "SEND_WITH_INV";
            default -> "OPCODE_" + opcode;
        };
    }

    /**
     * The completion opcode a successful send-queue WR of this opcode reports.
     *
     * @param opcode an {@code enum ibv_wr_opcode} value
     * @return the {@link WcOpcode} value
     * @throws IllegalArgumentException for an opcode this table does not know
     */
    public static int completionOpcode(int opcode) {
        return switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            case BIND_MW -> WcOpcode.BIND_MW;
            default -> throw new IllegalArgumentException("unknown WR opcode " + opcode);
        };
    }
}
