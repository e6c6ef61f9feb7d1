package dev.ibex.softroce.net;

/** Which way a datagram crosses a port, for fault rules. */
public enum Direction {
    /** A datagram the port sends: faulted before it reaches the socket. */
    SEND,
    /** A datagram the port receives: faulted after it was read from the socket, before the handler. */
    RECEIVE
}
