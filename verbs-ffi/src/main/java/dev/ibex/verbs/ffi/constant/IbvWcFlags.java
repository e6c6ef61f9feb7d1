package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_wc.wc_flags} bits.
 *
 * <p>Values of {@code enum ibv_wc_flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvWcFlags {
    public static final int IBV_WC_GRH = 1 << 0;
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    public static final int IBV_WC_IP_CSUM_OK = 1 << 2;
    public static final int IBV_WC_WITH_INV = 1 << 3;
    public static final int IBV_WC_TM_SYNC_REQ = 1 << 4;
    public static final int IBV_WC_TM_MATCH = 1 << 5;
    public static final int IBV_WC_TM_DATA_VALID = 1 << 6;

    private IbvWcFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvWcFlags.class, mask);
    }
}
