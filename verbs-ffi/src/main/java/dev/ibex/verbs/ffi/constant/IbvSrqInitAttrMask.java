package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_srq_init_attr_ex.comp_mask} bits.
 *
 * <p>Values of {@code enum ibv_srq_init_attr_mask}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvSrqInitAttrMask {
    public static final int IBV_SRQ_INIT_ATTR_TYPE = 1 << 0;
    public static final int IBV_SRQ_INIT_ATTR_PD = 1 << 1;
    public static final int IBV_SRQ_INIT_ATTR_XRCD = 1 << 2;
    public static final int IBV_SRQ_INIT_ATTR_CQ = 1 << 3;
    public static final int IBV_SRQ_INIT_ATTR_TM = 1 << 4;

    private IbvSrqInitAttrMask() {
    }
}
