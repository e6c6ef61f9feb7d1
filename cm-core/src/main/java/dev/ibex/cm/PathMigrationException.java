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

    /** Why migration was refused or failed. */
    private final Reason reason;
    /** The peer's APR status, or -1. */
    private final int apStatus;

    /**
     * A refusal or failure for {@code reason}; the errno is the reason's ({@code ENOTSUP}, {@code EINVAL} …).
     *
     * @param verb the operation that was refused or failed, e.g. {@code "migrate"}
     * @param reason why
     * @param advice what the user can do about it; may be empty
     */
    public PathMigrationException(String verb, Reason reason, String advice) {
        this(verb, reason, -1, advice, null);
    }

    /**
     * A refusal or failure for {@code reason}, caused by {@code cause}.
     *
     * @param verb the operation that was refused or failed
     * @param reason why
     * @param advice what the user can do about it; may be empty
     * @param cause the underlying failure, or {@code null}
     */
    public PathMigrationException(String verb, Reason reason, String advice, Throwable cause) {
        this(verb, reason, -1, advice, cause);
    }

    /**
     * A refusal or failure for {@code reason}, with the peer's APR status.
     *
     * @param verb the operation that was refused or failed
     * @param reason why
     * @param apStatus the peer's APR status ({@code enum ib_cm_apr_status}) for {@link Reason#REFUSED}, else -1
     * @param advice what the user can do about it; may be empty
     * @param cause the underlying failure, or {@code null}
     * @throws NullPointerException if {@code reason} is {@code null}
     */
    public PathMigrationException(String verb, Reason reason, int apStatus, String advice, Throwable cause) {
        super(verb, Objects.requireNonNull(reason, "reason").errno.number(), advice, cause);
        this.reason = reason;
        this.apStatus = apStatus;
    }

    /** {@return why migration was refused or failed} */
    public Reason reason() {
        return reason;
    }

    /** {@return the peer's APR status when it refused the alternate path ({@link Reason#REFUSED}), else -1} */
    public int apStatus() {
        return apStatus;
    }
}
