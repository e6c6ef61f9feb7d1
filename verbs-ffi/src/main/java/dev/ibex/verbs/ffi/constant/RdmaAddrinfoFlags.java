package dev.ibex.verbs.ffi.constant;

/**
 * {@code rdma_addrinfo.ai_flags} bits.
 *
 * <p>Values of {@code RAI_* flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class RdmaAddrinfoFlags {
    public static final int RAI_PASSIVE = 0x00000001;
    public static final int RAI_NUMERICHOST = 0x00000002;
    public static final int RAI_NOROUTE = 0x00000004;
    public static final int RAI_FAMILY = 0x00000008;

    private RdmaAddrinfoFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(RdmaAddrinfoFlags.class, mask);
    }
}
