package dev.ibex.softroce.net;

import java.lang.foreign.MemorySegment;

/**
 * Selects datagrams for a fault, e.g. "every RC ACK" or "the third REQ". Called on I/O threads with the
 * UDP payload; must not keep the segment.
 */
@FunctionalInterface
public interface DatagramPredicate {
    /**
     * Whether the fault applies to this datagram.
     *
     * @param srcIp sender IPv4 address
     * @param dstIp destination IPv4 address (the port's own address or a multicast group on receive)
     * @param payload the UDP payload, {@code length} bytes from offset 0
     * @param srcPort sender UDP port
     * @param dstPort destination UDP port
     * @param length  the UDP payload's length in bytes
     * @return {@code true} to apply the fault to this datagram
     */
    boolean test(int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment payload, int length);
}
