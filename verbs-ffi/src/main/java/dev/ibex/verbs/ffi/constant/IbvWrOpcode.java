package dev.ibex.verbs.ffi.constant;

/**
 * Send work request opcodes.
 *
 * <p>Values of {@code enum ibv_wr_opcode}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvWrOpcode {
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    public static final int IBV_WR_LOCAL_INV = 7;
    public static final int IBV_WR_BIND_MW = 8;
    public static final int IBV_WR_SEND_WITH_INV = 9;
    public static final int IBV_WR_TSO = 10;
    public static final int IBV_WR_DRIVER1 = 11;
    public static final int IBV_WR_ATOMIC_WRITE = 15;

    private IbvWrOpcode() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvWrOpcode.class, value);
    }
}
