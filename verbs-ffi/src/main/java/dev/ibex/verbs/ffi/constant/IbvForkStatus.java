package dev.ibex.verbs.ffi.constant;

/**
 * Results of {@code ibv_is_fork_initialized}.
 *
 * <p>Values of {@code enum ibv_fork_status}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvForkStatus {
    public static final int IBV_FORK_DISABLED = 0;
    public static final int IBV_FORK_ENABLED = 1;
    public static final int IBV_FORK_UNNEEDED = 2;

    private IbvForkStatus() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvForkStatus.class, value);
    }
}
