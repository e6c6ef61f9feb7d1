package dev.ibex.cm.reactive;

import dev.ibex.cm.endpoint.RdmaPath;
import dev.ibex.cm.spi.AsyncEvent;

/**
 * Something that happened to a connection, as seen on {@link RdmaConnection#events()}.
 *
 * @param type what happened
 * @param cause why, for {@link Type#ALTERNATE_PATH_FAILED}, {@link Type#PATH_MIG_ERROR} and {@link Type#ERROR};
 *     else {@code null}
 * @param deviceEvent the port or device event for {@link Type#DEVICE_EVENT}; else {@code null}
 * @param path for the path events, the path the QP uses now (local, remote, port) — for {@link Type#PATH_MIGRATED}
 *     the former alternate; {@code null} otherwise or when it cannot be read
 */
public record ConnectionEvent(Type type, Throwable cause, AsyncEvent deviceEvent, RdmaPath path) {

    /**
     * The kinds of connection event: {@link #ESTABLISHED} always comes first and {@link #CLOSED} last, with path,
     * device and end-of-connection events in between.
     */
    public enum Type {
        /** Connected (always the first event). */
        ESTABLISHED(true),
        /**
         * An alternate path was resolved and loaded and the QP re-armed (REARM). It is not armed yet: that takes the
         * peer's mirrored path and re-arm, seen on the wire ({@link #PATH_ARMED}).
         */
        ALTERNATE_PATH_LOADED(false),
        /** Loading (or agreeing on) an alternate path failed. */
        ALTERNATE_PATH_FAILED(false),
        /** The QP is ARMED: both ends re-armed, a dead primary path now migrates to the alternate. */
        PATH_ARMED(false),
        /** The QP migrated to its alternate path ({@link ConnectionEvent#path()} names it). */
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

        /**
         * Lifecycle events happen at most once and are replayed to late subscribers of {@code events()}.
         *
         * @return {@code true} for ESTABLISHED, DISCONNECTED, ERROR and CLOSED
         */
        public boolean isLifecycle() {
            return lifecycle;
        }
    }

    static final ConnectionEvent ESTABLISHED = new ConnectionEvent(Type.ESTABLISHED, null, null, null);
    static final ConnectionEvent DISCONNECTED = new ConnectionEvent(Type.DISCONNECTED, null, null, null);
    static final ConnectionEvent CLOSED = new ConnectionEvent(Type.CLOSED, null, null, null);

    static ConnectionEvent of(Type type) {
        return new ConnectionEvent(type, null, null, null);
    }

    static ConnectionEvent failure(Type type, Throwable cause) {
        return new ConnectionEvent(type, cause, null, null);
    }

    static ConnectionEvent path(Type type, Throwable cause, RdmaPath path) {
        return new ConnectionEvent(type, cause, null, path);
    }
}
