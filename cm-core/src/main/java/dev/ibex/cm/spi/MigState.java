package dev.ibex.cm.spi;

/**
 * {@code enum ibv_mig_state}: APM migration state. Loading an alternate path with REARM asks both ends to
 * synchronise; the QP becomes ARMED when they have; a migration (automatic on primary-path failure, or forced by
 * writing MIGRATED from ARMED) leaves it MIGRATED until a new alternate is loaded and REARM written again.
 */
public enum MigState {
    /** {@code IBV_MIG_MIGRATED}: no alternate path is armed (the initial state, and the state after migrating). */
    MIGRATED,
    /** {@code IBV_MIG_REARM}: an alternate path was loaded; both ends are synchronising. */
    REARM,
    /** {@code IBV_MIG_ARMED}: the alternate path is ready; a failure of the primary migrates to it. */
    ARMED;

    /** {@return the {@code enum ibv_mig_state} value} */
    public int code() {
        return ordinal();
    }

    /**
     * The constant for a migration state value.
     *
     * @param code an {@code enum ibv_mig_state} value, 0 to 2
     * @return its constant
     * @throws ArrayIndexOutOfBoundsException for another value
     */
    public static MigState ofCode(int code) {
        return values()[code];
    }
}
