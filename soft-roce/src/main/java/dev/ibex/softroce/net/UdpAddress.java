package dev.ibex.softroce.net;

import dev.ibex.softroce.wire.Ipv4;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * An IPv4 address and UDP port, with the {@link InetSocketAddress} the channel needs created once. Hold
 * one per peer (QP, CM peer, multicast group) so that sending allocates nothing.
 *
 * @param ip the IPv4 address as an int (see {@link Ipv4})
 */
public record UdpAddress(int ip, int port, InetSocketAddress socketAddress) {

    public UdpAddress {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port " + port + " is outside 0..65535");
        }
        Objects.requireNonNull(socketAddress, "socketAddress");
    }

    /** The address {@code ip:port}. */
    public static UdpAddress of(int ip, int port) {
        return new UdpAddress(ip, port, new InetSocketAddress(Ipv4.toInetAddress(ip), port));
    }

    /** The address of a resolved IPv4 socket address. */
    public static UdpAddress of(InetSocketAddress address) {
        if (!(address.getAddress() instanceof Inet4Address v4)) {
            throw new IllegalArgumentException("not a resolved IPv4 socket address: " + address);
        }
        return new UdpAddress(Ipv4.toInt(v4), address.getPort(), address);
    }

    /** Whether the address is an IPv4 multicast group. */
    public boolean isMulticast() {
        return Ipv4.isMulticast(ip);
    }

    @Override
    public String toString() {
        return Ipv4.toString(ip) + ":" + port;
    }
}
