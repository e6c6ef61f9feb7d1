package dev.ibex.verbs.ffi.constant;

/**
 * SRQ types for {@code ibv_create_srq_ex}.
 *
 * <p>Values of {@code enum ibv_srq_type}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvSrqType {
    public static final int IBV_SRQT_BASIC = 0;
    public static final int IBV_SRQT_XRC = 1;
    public static final int IBV_SRQT_TM = 2;

    private IbvSrqType() {
    }
}
