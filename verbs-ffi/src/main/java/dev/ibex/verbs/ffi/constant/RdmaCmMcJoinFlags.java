package dev.ibex.verbs.ffi.constant;

/**
 * {@code rdma_cm_join_mc_attr_ex.join_flags} values.
 *
 * <p>Values of {@code enum rdma_cm_mc_join_flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaCmMcJoinFlags {
    public static final int RDMA_MC_JOIN_FLAG_FULLMEMBER = 0;
    public static final int RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER = 1;

    private RdmaCmMcJoinFlags() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(RdmaCmMcJoinFlags.class, value);
    }
}
