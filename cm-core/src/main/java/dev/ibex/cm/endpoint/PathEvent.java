package dev.ibex.cm.endpoint;

/**
 * What happened to a connection's paths (automatic path migration).
 *
 * @param type the event
 * @param cause why, for {@link Type#ALTERNATE_FAILED} and {@link Type#MIGRATION_ERROR}; else {@code null}
 */
public record PathEvent(Type type, Throwable cause) {
    public enum Type {
        /** An alternate path was resolved and loaded; the QP is re-armed for migration. */
        ALTERNATE_LOADED,
        /** Resolving or loading the alternate path failed. */
        ALTERNATE_FAILED,
        /** The QP migrated to its alternate path ({@code IBV_EVENT_PATH_MIG}); it is no longer armed. */
        MIGRATED,
        /** Migration failed ({@code IBV_EVENT_PATH_MIG_ERR}): e.g. the alternate paths of both ends disagree. */
        MIGRATION_ERROR
    }
}
