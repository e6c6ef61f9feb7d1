package dev.ibex.cm.endpoint;

/** The states of a {@link Datagram}. */
public enum DatagramState {
    /** Created, not bound. */
    IDLE,
    /** Bound, UD QP ready, receives posted: datagrams flow; SIDR requests arrive if listening. */
    BOUND,
    /** Everything released. */
    CLOSED
}
