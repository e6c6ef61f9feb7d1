package dev.ibex.softroce;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.softroce.net.FaultInjector;
import dev.ibex.softroce.net.SoftPort;
import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.verbs.Link;
import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A device link on the network layer's {@link SoftPort}: one UDP socket per device address with its receive
 * thread, pooled receive buffers, the fabric's shared fault injector and pcap tap. Sending allocates nothing.
 */
final class NetLink implements Link {
    private final SoftPort port;

    private NetLink(SoftPort port) {
        this.port = port;
    }

    /** Opens {@link SoftPort}s with the fabric's settings, faults and tap. */
    static Link.Factory factory(SoftRoceConfig config, FaultInjector faults, PcapWriter tap) {
        return (address, udpPort, handler) -> {
            SoftPort.Builder b = SoftPort.builder(Ipv4.toInetAddress(address)).udpPort(udpPort).faults(faults)
                    .handler(d -> handler.onPacket(d.segment(), 0, d.length(), d.srcIp(), d.srcPort(), d.dstIp()));
            if (config.receiveBufferBytes() > 0) {
                b.receiveBufferBytes(config.receiveBufferBytes());
            }
            if (tap != null) {
                b.tap(tap);
            }
            try {
                return new NetLink(b.open());
            } catch (IOException e) {
                boolean inUse = e.getMessage() != null && e.getMessage().contains("in use");
                throw new RdmaException("bind", (inUse ? Errno.EADDRINUSE : Errno.EADDRNOTAVAIL).number(),
                        "cannot bind UDP " + Ipv4.toString(address)
                        + ":" + udpPort + " (" + e.getMessage() + "); another process (or kernel rxe, which owns 4791)"
                        + " may use it, or the address is not local: set " + SoftRoceConfig.PORT + " or "
                        + SoftRoceConfig.DEVICES, e);
            }
        };
    }

    @Override
    public int address() {
        return port.ip();
    }

    @Override
    public int port() {
        return port.udpPort();
    }

    @Override
    public void send(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
        try {
            port.send(datagram, dstIp, destination);
        } catch (IllegalStateException closed) {
            // the device is going away: the datagram is lost, as on a dead link
        }
    }

    @Override
    public void joinMulticast(int group) {
        try {
            port.joinMulticast(group);
        } catch (IOException e) {
            throw new RdmaException("ibv_attach_mcast", Errno.EADDRNOTAVAIL.number(), "cannot join the IPv4 group "
                    + Ipv4.toString(group) + " on " + Ipv4.toString(port.ip()) + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void leaveMulticast(int group) {
        port.leaveMulticast(group);
    }

    @Override
    public int netdevMtu() {
        return port.netdevMtu();
    }

    /** The underlying port (multicast, statistics). */
    SoftPort softPort() {
        return port;
    }

    @Override
    public void close() {
        port.close();
    }
}
