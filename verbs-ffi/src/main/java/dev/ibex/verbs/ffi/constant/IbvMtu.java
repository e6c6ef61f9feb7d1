package dev.ibex.verbs.ffi.constant;

/**
 * Path MTUs; the byte size is {@code 1 << (mtu + 7)}.
 *
 * <p>Values of {@code enum ibv_mtu}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvMtu {
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_512 = 2;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_2048 = 4;
    public static final int IBV_MTU_4096 = 5;

    private IbvMtu() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvMtu.class, value);
    }
}
