package dev.ibex.verbs.ffi.constant;

/**
 * QP transport types.
 *
 * <p>Values of {@code enum ibv_qp_type}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvQpType {
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UC = 3;
    public static final int IBV_QPT_UD = 4;
    public static final int IBV_QPT_RAW_PACKET = 8;
    public static final int IBV_QPT_XRC_SEND = 9;
    public static final int IBV_QPT_XRC_RECV = 10;
    public static final int IBV_QPT_DRIVER = 0xff;

    private IbvQpType() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvQpType.class, value);
    }
}
