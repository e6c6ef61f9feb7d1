package dev.ibex.verbs.ffi.constant;

/**
 * Levels and option names of {@code rdma_set_option} (anonymous enums in {@code rdma_cma.h}).
 *
 * <p>Values of {@code rdma_set_option levels and names}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaOption {
    public static final int RDMA_OPTION_ID = 0;
    public static final int RDMA_OPTION_IB = 1;
    public static final int RDMA_OPTION_ID_TOS = 0;
    public static final int RDMA_OPTION_ID_REUSEADDR = 1;
    public static final int RDMA_OPTION_ID_AFONLY = 2;
    public static final int RDMA_OPTION_ID_ACK_TIMEOUT = 3;
    public static final int RDMA_OPTION_IB_PATH = 1;

    private RdmaOption() {
    }
}
