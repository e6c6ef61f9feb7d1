package dev.ibex.cm.endpoint;

/**
 * What happened to a connection's paths (automatic path migration).
 *
 * @param type the event
 * @param cause why, for {@link Type#ALTERNATE_FAILED} and {@link Type#MIGRATION_ERROR} (a
 *     {@link dev.ibex.cm.PathMigrationException} or a resolution failure); else {@code null}
 * @param primary the path the QP uses now, as its attributes say (for {@link Type#MIGRATED}: the former
 *     alternate); {@code null} when it cannot be read
 */
public record PathEvent(Type type, Throwable cause, RdmaPath primary) {
    /** What happened. */
    public enum Type {
        /**
         * An alternate path was resolved and loaded and the QP re-armed (REARM): it becomes ARMED — able to migrate —
         * only once the peer has re-armed too and a packet shows it ({@link #ARMED}).
         */
        ALTERNATE_LOADED,
        /** Resolving, loading or agreeing on the alternate path failed; nothing is armed. */
        ALTERNATE_FAILED,
        /** The QP was seen ARMED: both ends re-armed, a dead primary now migrates to the alternate. */
        ARMED,
        /** The QP migrated to its alternate path ({@code IBV_EVENT_PATH_MIG}); it is no longer armed. */
        MIGRATED,
        /** Migration failed ({@code IBV_EVENT_PATH_MIG_ERR}, or a forced migration was refused). */
        MIGRATION_ERROR
    }

    /**
     * An event without the primary path.
     *
     * @param type the event
     * @param cause why, for the failures; else {@code null}
     */
    public PathEvent(Type type, Throwable cause) {
        this(type, cause, null);
    }
}
