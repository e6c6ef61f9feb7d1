package dev.ibex.verbs.ffi.constant;

/**
 * {@code rdma_cm_join_mc_attr_ex.comp_mask} bits.
 *
 * <p>Values of {@code enum rdma_cm_join_mc_attr_mask}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaCmJoinMcAttrMask {
    public static final int RDMA_CM_JOIN_MC_ATTR_ADDRESS = 1 << 0;
    public static final int RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS = 1 << 1;

    private RdmaCmJoinMcAttrMask() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(RdmaCmJoinMcAttrMask.class, mask);
    }
}
