package dev.ibex.cm.spi;

/** {@code enum ibv_wc_opcode} values (receive opcodes have bit 7 set). */
public final class WcOpcode {
    /** {@code IBV_WC_SEND}: a SEND (of any kind) completed. */
    public static final int SEND = 0;
    /** {@code IBV_WC_RDMA_WRITE}: an RDMA WRITE completed. */
    public static final int RDMA_WRITE = 1;
    /** {@code IBV_WC_RDMA_READ}: an RDMA READ completed; the data is in the local buffers. */
    public static final int RDMA_READ = 2;
    /** {@code IBV_WC_COMP_SWAP}: a compare-and-swap completed; the old value is in the local buffer. */
    public static final int COMP_SWAP = 3;
    /** {@code IBV_WC_FETCH_ADD}: a fetch-and-add completed; the old value is in the local buffer. */
    public static final int FETCH_ADD = 4;
    /** {@code IBV_WC_BIND_MW}: a memory window bind completed. */
    public static final int BIND_MW = 5;
    /** {@code IBV_WC_LOCAL_INV}: a local invalidation completed. */
    public static final int LOCAL_INV = 6;
    /** {@code IBV_WC_TSO}: a TCP segmentation offload send completed (raw packet QPs). */
    public static final int TSO = 7;
    /** {@code IBV_WC_RECV}: a receive consumed by a SEND. */
    public static final int RECV = 1 << 7;
    /**
     * {@code IBV_WC_RECV_RDMA_WITH_IMM}: a receive consumed by an RDMA WRITE with immediate data (no payload in the
     * buffer).
     */
    public static final int RECV_RDMA_WITH_IMM = RECV + 1;
    /** {@code IBV_WC_TM_ADD}: a tag-matching list addition ({@link SrqOpsBatch#TAG_ADD}) completed. */
    public static final int TM_ADD = RECV + 2;
    /** {@code IBV_WC_TM_DEL}: a tag-matching list removal ({@link SrqOpsBatch#TAG_DEL}) completed. */
    public static final int TM_DEL = RECV + 3;
    /** {@code IBV_WC_TM_SYNC}: a tag-matching counter synchronisation ({@link SrqOpsBatch#TAG_SYNC}) completed. */
    public static final int TM_SYNC = RECV + 4;
    /**
     * {@code IBV_WC_TM_RECV}: a tagged message matched a posted tag; {@link WcFlags#TM_MATCH} and
     * {@link WcFlags#TM_DATA_VALID} say which of the two events (match, data delivered) this completion reports.
     */
    public static final int TM_RECV = RECV + 5;
    /** {@code IBV_WC_TM_NO_TAG}: a message sent without a tag landed in an ordinary receive of a tag-matching SRQ. */
    public static final int TM_NO_TAG = RECV + 6;

    private WcOpcode() {}

    /**
     * Whether an opcode is a receive queue's.
     *
     * @param opcode an {@code enum ibv_wc_opcode} value
     * @return whether bit 7 ({@link #RECV}) is set
     */
    public static boolean isReceive(int opcode) {
        return (opcode & RECV) != 0;
    }

    /**
     * The opcode's name, for messages.
     *
     * @param opcode an {@code enum ibv_wc_opcode} value
     * @return its name, or {@code OPCODE_n} for one this table does not know
     */
    public static String name(int opcode) {
        return switch (opcode) {
            case SEND -> "SEND";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ -> "RDMA_READ";
            case COMP_SWAP -> "COMP_SWAP";
            case FETCH_ADD -> "FETCH_ADD";
            case BIND_MW -> "BIND_MW";
            case LOCAL_INV -> "LOCAL_INV";
            case TSO -> "TSO";
            case RECV -> "RECV";
            case RECV_RDMA_WITH_IMM -> "RECV_RDMA_WITH_IMM";
            case TM_ADD -> "TM_ADD";
            case TM_DEL -> "TM_DEL";
            case TM_SYNC -> "TM_SYNC";
            case TM_RECV -> "TM_RECV";
            case TM_NO_TAG -> "TM_NO_TAG";
            default -> "OPCODE_" + opcode;
        };
    }
}
