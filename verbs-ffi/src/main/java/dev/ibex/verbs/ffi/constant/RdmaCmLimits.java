package dev.ibex.verbs.ffi.constant;

/**
 * Limits and fixed values of {@code rdma_cma.h}.
 *
 * <p>Values of {@code rdma_cma.h limits}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaCmLimits {
    public static final int RDMA_MAX_RESP_RES = 0xFF;
    public static final int RDMA_MAX_INIT_DEPTH = 0xFF;
    public static final int RDMA_UDP_QKEY = 0x01234567;

    private RdmaCmLimits() {
    }
}
