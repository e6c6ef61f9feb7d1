package dev.ibex.cm.endpoint;

import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.spi.MigState;
import java.net.InetSocketAddress;

/**
 * Automatic path migration (APM) of a {@link Connection}: loading an alternate path, forcing a migration, re-arming,
 * and the QP's migration state and current path. Events come back through {@link ConnectionHandler#onPathEvent};
 * docs/apm.md describes the states. Any thread may call these.
 */
public interface PathMigration {
    /**
     * Loads an alternate path for automatic path migration: resolves a route from {@code localAlternate} to
     * {@code remoteAlternate} with a temporary CM id on this loop, loads it into the QP and re-arms it
     * ({@code IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE = REARM}): {@link PathEvent.Type#ALTERNATE_LOADED}. The QP
     * becomes ARMED — able to migrate — only when the peer has loaded the mirrored path and re-armed too and traffic
     * has shown it ({@link PathEvent.Type#ARMED}); later migrations arrive as {@link PathEvent.Type#MIGRATED}, all
     * through {@link ConnectionHandler#onPathEvent}. Any thread.
     *
     * @param localAlternate the local address of the alternate path (another port or device)
     * @param remoteAlternate the peer's address on the alternate path
     * @throws IllegalStateException when not established
     * @throws PathMigrationException (ENOTSUP) when the device or port cannot migrate paths, before the QP is touched
     */
    void alternatePath(InetSocketAddress localAlternate, InetSocketAddress remoteAlternate);

    /**
     * Forces a migration to the loaded alternate path ({@code path_mig_state = MIGRATED}); any thread. Only an ARMED
     * QP migrates: otherwise {@link PathEvent.Type#MIGRATION_ERROR} with a {@link PathMigrationException}
     * ({@link PathMigrationException.Reason#NOT_ARMED}).
     *
     * @throws PathMigrationException (ENOTSUP) when the device or port cannot migrate paths
     */
    void migrate();

    /**
     * After a migration, loads the former primary path as the alternate again and re-arms (what
     * {@link ConnectionOptions#withRearmAfterMigration} does by itself); {@link PathEvent.Type#ALTERNATE_FAILED}
     * when the connection has not migrated. Any thread.
     *
     * @throws PathMigrationException (ENOTSUP) when the device or port cannot migrate paths
     */
    void rearm();

    /**
     * The QP's path migration state now ({@code ibv_query_qp}): MIGRATED (no usable alternate), REARM (loaded, the
     * peer not yet re-armed) or ARMED; {@code null} without a QP. Any thread.
     *
     * @return the state, or {@code null}
     */
    MigState pathMigrationState();

    /**
     * {@return the path the QP uses now (local, remote, port), from its attributes; {@code null} without a QP. Any
     * thread}
     */
    RdmaPath primaryPath();
}
