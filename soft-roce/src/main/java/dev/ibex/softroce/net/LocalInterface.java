package dev.ibex.softroce.net;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Iterator;

/** Finds the network interface a local IPv4 address lives on, including the rest of 127/8 on {@code lo}. */
final class LocalInterface {
    private LocalInterface() {
    }

    /**
     * The interface that has {@code address}, or whose subnet contains it (127.0.0.2 is routed to {@code lo}
     * although only 127.0.0.1/8 is configured there); {@code null} if none.
     */
    static NetworkInterface of(Inet4Address address) throws SocketException {
        NetworkInterface exact = NetworkInterface.getByInetAddress(address);
        if (exact != null) {
            return exact;
        }
        for (Iterator<NetworkInterface> it = NetworkInterface.networkInterfaces().iterator(); it.hasNext(); ) {
            NetworkInterface nif = it.next();
            if (!nif.isUp() || nif.isLoopback() != address.isLoopbackAddress()) {
                continue;
            }
            for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                if (ia.getAddress() instanceof Inet4Address v4 && sameSubnet(address, v4, ia.getNetworkPrefixLength())) {
                    return nif;
                }
            }
        }
        return null;
    }

    private static boolean sameSubnet(InetAddress a, InetAddress b, int prefix) {
        if (prefix <= 0 || prefix > 32) {
            return false;
        }
        int mask = prefix == 32 ? -1 : ~(-1 >>> prefix);
        return (dev.ibex.softroce.wire.Ipv4.toInt(a) & mask) == (dev.ibex.softroce.wire.Ipv4.toInt(b) & mask);
    }
}
