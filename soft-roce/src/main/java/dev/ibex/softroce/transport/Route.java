package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AhAttr;
import java.net.InetSocketAddress;

/**
 * A resolved address vector: the local port and link (source GID) and the destination address, with the socket
 * address cached so sending allocates nothing.
 *
 * @param attr the address vector as given
 * @param port the local port the path leaves through (1-based)
 * @param link the local address packets leave from ({@code sgidIndex} of {@code port})
 * @param dstIp the destination IPv4 address (the dgid's) as an int
 * @param destination {@code dstIp} and the fabric's port
 */
public record Route(AhAttr attr, int port, Link link, int dstIp, InetSocketAddress destination) {
    /** The source IPv4 address as an int. */
    public int srcIp() {
        return link.address();
    }

    /**
     * Whether a packet from {@code srcIp:srcPort} to {@code dstIp} came along this path (the reverse direction):
     * rxe's check_addr, and the UDP port too — the peer's address and port on the path (every soft-roce device sends
     * from the fabric's port) to the local address of that path. Anything else is forged or misdirected, and
     * believing it would let a third party ACK, NAK or inject.
     */
    public boolean carries(int srcIp, int srcPort, int dstIp) {
        return this.dstIp == srcIp && link.address() == dstIp && destination.getPort() == srcPort;
    }
}
