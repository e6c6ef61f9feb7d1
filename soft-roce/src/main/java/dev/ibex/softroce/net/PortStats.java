package dev.ibex.softroce.net;

/**
 * Counters of a {@link SoftPort} since it was opened.
 *
 * @param sent datagrams the kernel accepted (duplicates included)
 * @param received datagrams read from the sockets (before receive faults)
 * @param delivered handler calls
 * @param sendFailures sends the kernel refused
 * @param oversize received datagrams that filled a whole receive buffer and were dropped as possibly truncated
 * @param handlerErrors handler calls that threw
 * @param receiveBufferBytes the socket receive buffer the kernel granted
 * @param segmentedSends system calls that sent several datagrams at once (UDP segmentation offload, see
 *     {@link SoftPort#sendSegments})
 */
public record PortStats(long sent, long received, long delivered, long sendFailures, long oversize,
        long handlerErrors, int receiveBufferBytes, long segmentedSends) {
}
