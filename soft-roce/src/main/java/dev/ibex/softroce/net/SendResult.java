package dev.ibex.softroce.net;

/**
 * What became of a datagram handed to {@link SoftPort#send}. UDP promises no delivery: {@link #SENT} means
 * the kernel accepted it, not that anyone received it (a datagram to an address where nothing listens is
 * lost silently, as a RoCE packet to a dead peer would be).
 */
public enum SendResult {
    /** Accepted by the kernel. */
    SENT,
    /** Discarded by fault injection (drop or black hole). */
    DROPPED,
    /** Held by fault injection (delay or reorder); it goes out later from the port's fault timer. */
    DEFERRED,
    /** The kernel refused it (no route, too long, …); counted in {@link PortStats#sendFailures()} and logged. */
    FAILED
}
