package dev.ibex.cm.endpoint;

/** Callbacks of a {@link Listener}, on its event loop. */
@FunctionalInterface
public interface ListenerHandler {

    /**
     * A peer wants to connect. Answer with {@link ConnectionRequest#accept} or {@link ConnectionRequest#reject}, now
     * or later from any thread; unanswered requests are rejected after {@link ListenOptions#requestTimeout()}.
     *
     * @param request the request to answer
     */
    void onConnectionRequest(ConnectionRequest request);

    /**
     * Bound and listening; {@link Listener#localAddress()} is known (useful with port 0).
     *
     * @param listener the listener
     */
    default void onListening(Listener listener) {}

    /**
     * Binding or listening failed, or the device went away. {@link #onClosed} follows.
     *
     * @param listener the listener
     * @param error why
     */
    default void onError(Listener listener, Throwable error) {}

    /**
     * The listener is closed and its id destroyed; exactly once, last.
     *
     * @param listener the listener
     */
    default void onClosed(Listener listener) {}
}
