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
 * @param port          the UDP port, 0 to 65535
 * @param socketAddress the same address and port as the channel takes it
 */
public record UdpAddress(int ip, int port, InetSocketAddress socketAddress) {

    /**
     * Checks the port.
     *
     * @throws IllegalArgumentException when {@code port} is outside 0 to 65535
     */
    public UdpAddress {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port " + port + " is outside 0..65535");
        }
        Objects.requireNonNull(socketAddress, "socketAddress");
    }

    /**
     * The address {@code ip:port}.
     *
     * @param ip   the IPv4 address as a big-endian int
     * @param port the UDP port, 0 to 65535
     * @return the address
     * @throws IllegalArgumentException when {@code port} is outside 0 to 65535
     */
    public static UdpAddress of(int ip, int port) {
        return new UdpAddress(ip, port, new InetSocketAddress(Ipv4.toInetAddress(ip), port));
    }

    /**
     * The address of a resolved IPv4 socket address.
     *
     * @param address a resolved IPv4 socket address
     * @return the address
     * @throws IllegalArgumentException when {@code address} is unresolved or not IPv4
     */
    public static UdpAddress of(InetSocketAddress address) {
        if (!(address.getAddress() instanceof Inet4Address v4)) {
            throw new IllegalArgumentException("not a resolved IPv4 socket address: " + address);
        }
        return new UdpAddress(Ipv4.toInt(v4), address.getPort(), address);
    }

    /**
     * Whether the address is an IPv4 multicast group.
     *
     * @return {@code true} for 224.0.0.0/4
     */
    public boolean isMulticast() {
        return Ipv4.isMulticast(ip);
    }

    @Override
    public String toString() {
        return Ipv4.toString(ip) + ":" + port;
    }
}
