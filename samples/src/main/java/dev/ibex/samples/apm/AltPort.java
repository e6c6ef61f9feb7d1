package dev.ibex.samples.apm;

import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PortAttributes;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * apm.c's {@code get_alt_port_details} for RoCE: the local alternate — an ACTIVE port other than the one in use and
 * its first GID — and, since a RoCE port may hold several addresses, another GID of the port in use when no other
 * port is up. Also the 4-byte private-data form of an alternate address.
 *
 * @param port the local alternate port
 * @param address its GID as an IPv4 address
 */
record AltPort(int port, Inet4Address address) {

    /**
     * The alternate of a connection using {@code currentPort}/{@code current} on {@code device}, or {@code null}
     * when the device has none; {@code requestedPort} ({@code -r}) picks the port.
     *
     * @throws IllegalStateException "device does not support auto path migration" (apm.c's message)
     */
    static AltPort find(DeviceContext device, int currentPort, InetAddress current, Integer requestedPort) {
        if (!device.queryDevice().supportsAutoPathMigration()) {
            throw new IllegalStateException("device does not support auto path migration");
        }
        int ports = device.queryDevice().physPortCount();
        if (requestedPort != null) {
            return first(device, requestedPort, current);
        }
        for (int p = 1; p <= ports; p++) {
            if (p != currentPort && device.queryPort(p).state() == PortAttributes.STATE_ACTIVE) {
                AltPort a = first(device, p, current);
                if (a != null) {
                    return a;
                }
            }
        }
        return first(device, currentPort, current); // another GID of the port in use
    }

    private static AltPort first(DeviceContext device, int port, InetAddress notThis) {
        int n = device.queryPort(port).gidTableLength();
        for (int i = 0; i < n; i++) {
            Gid g;
            try {
                g = device.queryGid(port, i);
            } catch (RuntimeException e) {
                continue;
            }
            if (g.isIpv4Mapped() && g.toInetAddress() instanceof Inet4Address a && !a.equals(notThis)) {
                return new AltPort(port, a);
            }
        }
        return null;
    }

    /** The private data: the 4 bytes of the alternate address, network order. */
    byte[] privateData() {
        return address.getAddress();
    }

    /** The alternate address the peer sent, or {@code null} when its private data holds none (fewer than 4 bytes). */
    static Inet4Address fromPrivateData(byte[] data) {
        if (data == null || data.length < 4) {
            return null;
        }
        try {
            InetAddress a = InetAddress.getByAddress(java.util.Arrays.copyOf(data, 4));
            return a instanceof Inet4Address v4 && !v4.isAnyLocalAddress() ? v4 : null;
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }
}
