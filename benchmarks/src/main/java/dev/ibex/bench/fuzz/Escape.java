package dev.ibex.bench.fuzz;

/**
 * Something a hostile packet achieved that it must not: the seed and packet index replay it.
 *
 * @param type what escaped
 * @param seed the run's seed
 * @param packet the number of packets injected when it was seen (the culprit is at or before it)
 * @param detail what was seen
 */
public record Escape(Type type, long seed, long packet, String detail) {

    /** The kinds of escape. */
    public enum Type {
        /** An exception reached an uncaught handler or was caught and logged by the stack. */
        UNCAUGHT,
        /** A message was delivered corrupt, out of order, twice or not at all. */
        WRONG_DATA,
        /** Traffic stopped for longer than the bound without the connection ending. */
        HANG,
        /** A connection ended that no packet on its path was sent to. */
        HARM,
        /** A connection ended without a typed error. */
        UNTYPED,
        /** A packet off the path was dropped without being counted (or a counter moved for nothing). */
        UNCOUNTED
    }

    @Override
    public String toString() {
        return type + " (seed " + seed + ", by packet " + packet + "): " + detail;
    }
}
