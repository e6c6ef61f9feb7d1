package dev.ibex.cm.endpoint;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.DeviceContext;
import java.net.InetAddress;

/**
 * One path of a connection as its QP holds it: the local address (the source GID), the remote address (the
 * destination GID) and the local port. On RoCE the GIDs are IP addresses; an InfiniBand GID that is not
 * IPv4-mapped reads as an IPv6 address.
 *
 * @param local the local GID as an address
 * @param remote the remote GID as an address
 * @param port the local device port (1-based)
 */
public record RdmaPath(InetAddress local, InetAddress remote, int port) {

    /** The path of address vector {@code ah} on {@code device} ({@code null} when it names no valid GID). */
    static RdmaPath of(DeviceContext device, AhAttr ah) {
        if (ah == null || ah.dgid() == null) {
            return null;
        }
        try {
            return new RdmaPath(device.queryGid(ah.portNum(), ah.sgidIndex()).toInetAddress(),
                    ah.dgid().toInetAddress(), ah.portNum());
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return local.getHostAddress() + " -> " + remote.getHostAddress() + " (port " + port + ")";
    }
}
