package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_modify_srq} mask bits.
 *
 * <p>Values of {@code enum ibv_srq_attr_mask}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvSrqAttrMask {
    public static final int IBV_SRQ_MAX_WR = 1 << 0;
    public static final int IBV_SRQ_LIMIT = 1 << 1;

    private IbvSrqAttrMask() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvSrqAttrMask.class, mask);
    }
}
