package dev.ibex.verbs.ffi.constant;

/**
 * APM path migration states ({@code ibv_qp_attr.path_mig_state}).
 *
 * <p>Values of {@code enum ibv_mig_state}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvMigState {
    public static final int IBV_MIG_MIGRATED = 0;
    public static final int IBV_MIG_REARM = 1;
    public static final int IBV_MIG_ARMED = 2;

    private IbvMigState() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvMigState.class, value);
    }
}
