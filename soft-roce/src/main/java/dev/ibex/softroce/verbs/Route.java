package dev.ibex.softroce.verbs;

import dev.ibex.cm.spi.AhAttr;
import java.net.InetSocketAddress;

/**
 * A resolved address vector: the local link (source GID) and the destination address, with the socket address
 * cached so sending allocates nothing.
 *
 * @param attr the address vector as given
 * @param link the local address packets leave from ({@code sgidIndex})
 * @param dstIp the destination IPv4 address (the dgid's) as an int
 * @param destination {@code dstIp} and the fabric's port
 */
public record Route(AhAttr attr, Link link, int dstIp, InetSocketAddress destination) {
    /** The source IPv4 address as an int. */
    public int srcIp() {
        return link.address();
    }
}
