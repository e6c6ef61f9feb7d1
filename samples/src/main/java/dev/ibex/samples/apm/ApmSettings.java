package dev.ibex.samples.apm;

import java.net.Inet4Address;

/**
 * The options of one {@code apm} run.
 *
 * @param peerAlternate the peer's alternate address given with {@code -d}, or {@code null} to take it from the
 *     peer's private data
 * @param altSrcPort the local alternate port given with {@code -r}, or {@code null} to find one
 */
record ApmSettings(int msgCount, int msgLength, int msecDelay, int migrateAfter, Inet4Address peerAlternate,
        Integer altSrcPort) {
}
