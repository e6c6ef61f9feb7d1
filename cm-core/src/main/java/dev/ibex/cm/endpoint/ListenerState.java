package dev.ibex.cm.endpoint;

/** The states of a {@link Listener}. */
public enum ListenerState {
    /** Created, not bound yet. */
    IDLE,
    /** Bound and listening: connection requests arrive. */
    LISTENING,
    /** The id is destroyed. */
    CLOSED
}
