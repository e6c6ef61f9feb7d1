package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_send_wr.send_flags} bits.
 *
 * <p>Values of {@code enum ibv_send_flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvSendFlags {
    public static final int IBV_SEND_FENCE = 1 << 0;
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    public static final int IBV_SEND_INLINE = 1 << 3;
    public static final int IBV_SEND_IP_CSUM = 1 << 4;

    private IbvSendFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvSendFlags.class, mask);
    }
}
