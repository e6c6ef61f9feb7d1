package dev.ibex.verbs.ffi.constant;

/**
 * Memory window types ({@code ibv_alloc_mw}): type 1 windows are bound with {@code ibv_bind_mw} and serve every QP of
 * the PD; type 2 windows are bound with an {@code IBV_WR_BIND_MW} work request to the QP that posts it.
 *
 * <p>Values of {@code enum ibv_mw_type}, with the C names; the layout test checks every value against the installed
 * headers.
 */
public final class IbvMwType {
    public static final int IBV_MW_TYPE_1 = 1;
    public static final int IBV_MW_TYPE_2 = 2;

    private IbvMwType() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvMwType.class, value);
    }
}
