package dev.ibex.cm.reactive;

import dev.ibex.cm.spi.AsyncEvent;

/**
 * Something that happened to a connection, as seen on {@link RdmaConnection#events()}.
 *
 * @param type what happened
 * @param cause why, for {@link Type#ALTERNATE_PATH_FAILED}, {@link Type#PATH_MIG_ERROR} and {@link Type#ERROR};
 *     else {@code null}
 * @param deviceEvent the port or device event for {@link Type#DEVICE_EVENT}; else {@code null}
 */
public record ConnectionEvent(Type type, Throwable cause, AsyncEvent deviceEvent) {

    public enum Type {
        /** Connected (always the first event). */
        ESTABLISHED(true),
        /** An alternate path was resolved and loaded; the QP is armed for migration. */
        ALTERNATE_PATH_LOADED(false),
        /** Loading an alternate path failed. */
        ALTERNATE_PATH_FAILED(false),
        /** The QP migrated to its alternate path. */
        PATH_MIGRATED(false),
        /** Migration failed (the two ends' alternate paths disagree, or the alternate link is down). */
        PATH_MIG_ERROR(false),
        /** The local address moved to another hardware address (bonding failover); the connection stays. */
        ADDRESS_CHANGED(false),
        /** A port or device event of the connection's device (PORT_ERR, PORT_ACTIVE, GID change …). */
        DEVICE_EVENT(false),
        /** The peer disconnected. */
        DISCONNECTED(true),
        /** The connection failed (a fatal QP error, a failed operation); it closes. */
        ERROR(true),
        /** Everything is released (always the last event). */
        CLOSED(true);

        private final boolean lifecycle;

        Type(boolean lifecycle) {
            this.lifecycle = lifecycle;
        }

        /** Lifecycle events happen at most once and are replayed to late subscribers of {@code events()}. */
        public boolean isLifecycle() {
            return lifecycle;
        }
    }

    static final ConnectionEvent ESTABLISHED = new ConnectionEvent(Type.ESTABLISHED, null, null);
    static final ConnectionEvent DISCONNECTED = new ConnectionEvent(Type.DISCONNECTED, null, null);
    static final ConnectionEvent CLOSED = new ConnectionEvent(Type.CLOSED, null, null);

    static ConnectionEvent of(Type type) {
        return new ConnectionEvent(type, null, null);
    }

    static ConnectionEvent failure(Type type, Throwable cause) {
        return new ConnectionEvent(type, cause, null);
    }
}
