package dev.ibex.verbs.ffi.constant;

/**
 * Work completion opcodes; test receives with {@code (opcode & IBV_WC_RECV) != 0}.
 *
 * <p>Values of {@code enum ibv_wc_opcode}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvWcOpcode {
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_COMP_SWAP = 3;
    public static final int IBV_WC_FETCH_ADD = 4;
    public static final int IBV_WC_BIND_MW = 5;
    public static final int IBV_WC_LOCAL_INV = 6;
    public static final int IBV_WC_TSO = 7;
    public static final int IBV_WC_ATOMIC_WRITE = 9;
    public static final int IBV_WC_RECV = 128;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;
    public static final int IBV_WC_TM_ADD = 130;
    public static final int IBV_WC_TM_DEL = 131;
    public static final int IBV_WC_TM_SYNC = 132;
    public static final int IBV_WC_TM_RECV = 133;
    public static final int IBV_WC_TM_NO_TAG = 134;
    public static final int IBV_WC_DRIVER1 = 135;
    public static final int IBV_WC_DRIVER2 = 136;
    public static final int IBV_WC_DRIVER3 = 137;

    private IbvWcOpcode() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvWcOpcode.class, value);
    }
}
