package dev.ibex.verbs.ffi.constant;

/**
 * Atomic operation guarantees ({@code ibv_device_attr.atomic_cap}).
 *
 * <p>Values of {@code enum ibv_atomic_cap}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvAtomicCap {
    public static final int IBV_ATOMIC_NONE = 0;
    public static final int IBV_ATOMIC_HCA = 1;
    public static final int IBV_ATOMIC_GLOB = 2;

    private IbvAtomicCap() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvAtomicCap.class, value);
    }
}
