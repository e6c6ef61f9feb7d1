package dev.ibex.cm;

import java.util.Objects;

/**
 * Automatic path migration (APM) was refused or failed, with the {@link Reason}: a device or port that cannot
 * migrate (refused before the QP is touched), a forced migration of a QP that is not armed, an alternate path the
 * peer refused, or a migration that could not happen.
 */
public final class PathMigrationException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Reason {
        /** The device does not claim {@code IBV_DEVICE_AUTO_PATH_MIG} (a soft device with one address: no alternate exists). */
        NO_AUTO_PATH_MIG(Errno.ENOTSUP),
        /** The port is RoCE or iWARP and the provider loads no alternate path there (Linux: InfiniBand only). */
        LINK_LAYER(Errno.ENOTSUP),
        /** The provider's CM cannot carry an alternate path (librdmacm ignores alternate path records). */
        CM_UNSUPPORTED(Errno.ENOTSUP),
        /** Forced migration, but the QP is not ARMED (no alternate loaded, or the peer has not re-armed yet). */
        NOT_ARMED(Errno.EINVAL),
        /** The peer answered the proposed alternate path with an APR status other than 0. */
        REFUSED(Errno.ECONNREFUSED),
        /** The alternate path could not be resolved or loaded. */
        LOAD_FAILED(Errno.EINVAL),
        /** {@code IBV_EVENT_PATH_MIG_ERR}: the QP could not migrate. */
        MIGRATION_FAILED(Errno.EIO);

        private final Errno errno;

        Reason(Errno errno) {
            this.errno = errno;
        }
    }

    private final Reason reason;
    private final int apStatus;

    public PathMigrationException(String verb, Reason reason, String advice) {
        this(verb, reason, -1, advice, null);
    }

    public PathMigrationException(String verb, Reason reason, String advice, Throwable cause) {
        this(verb, reason, -1, advice, cause);
    }

    /**
     * @param apStatus the peer's APR status ({@code enum ib_cm_apr_status}) for {@link Reason#REFUSED}, else -1
     */
    public PathMigrationException(String verb, Reason reason, int apStatus, String advice, Throwable cause) {
        super(verb, Objects.requireNonNull(reason, "reason").errno.number(), advice, cause);
        this.reason = reason;
        this.apStatus = apStatus;
    }

    public Reason reason() {
        return reason;
    }

    /** The peer's APR status when it refused the alternate path ({@link Reason#REFUSED}), else -1. */
    public int apStatus() {
        return apStatus;
    }
}
