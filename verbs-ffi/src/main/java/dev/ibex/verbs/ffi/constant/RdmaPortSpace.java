package dev.ibex.verbs.ffi.constant;

/**
 * Port spaces of {@code rdma_create_id}.
 *
 * <p>Values of {@code enum rdma_port_space}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaPortSpace {
    public static final int RDMA_PS_IPOIB = 0x0002;
    public static final int RDMA_PS_TCP = 0x0106;
    public static final int RDMA_PS_UDP = 0x0111;
    public static final int RDMA_PS_IB = 0x013F;

    private RdmaPortSpace() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(RdmaPortSpace.class, value);
    }
}
