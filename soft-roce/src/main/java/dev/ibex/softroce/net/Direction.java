package dev.ibex.softroce.net;

/** Which way a datagram crosses a port, for fault rules. */
public enum Direction {
    SEND, RECEIVE
}
