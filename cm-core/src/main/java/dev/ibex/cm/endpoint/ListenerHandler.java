package dev.ibex.cm.endpoint;

/** Callbacks of a {@link Listener}, on its event loop. */
@FunctionalInterface
public interface ListenerHandler {

    /**
     * A peer wants to connect. Answer with {@link ConnectionRequest#accept} or {@link ConnectionRequest#reject}, now
     * or later from any thread; unanswered requests are rejected after {@link ListenOptions#requestTimeout()}.
     */
    void onConnectionRequest(ConnectionRequest request);

    /** Bound and listening; {@link Listener#localAddress()} is known (useful with port 0). */
    default void onListening(Listener listener) {}

    /** Binding or listening failed, or the device went away. {@link #onClosed} follows. */
    default void onError(Listener listener, Throwable error) {}

    default void onClosed(Listener listener) {}
}
