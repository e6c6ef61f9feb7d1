package dev.ibex.cm.spi;

/**
 * {@code enum ibv_mig_state}: APM migration state. Loading an alternate path with REARM asks both ends to
 * synchronise; the QP becomes ARMED when they have; a migration (automatic on primary-path failure, or forced by
 * writing MIGRATED from ARMED) leaves it MIGRATED until a new alternate is loaded and REARM written again.
 */
public enum MigState {
    MIGRATED, REARM, ARMED;

    public int code() {
        return ordinal();
    }

    public static MigState ofCode(int code) {
        return values()[code];
    }
}
