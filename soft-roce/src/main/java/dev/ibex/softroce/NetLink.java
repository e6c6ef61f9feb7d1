package dev.ibex.softroce;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.softroce.net.FaultInjector;
import dev.ibex.softroce.net.SoftPort;
import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.transport.Link;
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
            dev.ibex.softroce.net.PortBuilder b = SoftPort.builder(Ipv4.toInetAddress(address)).udpPort(udpPort).faults(faults)
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
    public void sendSegments(ByteBuffer datagrams, int segmentSize, int dstIp, InetSocketAddress destination) {
        try {
            port.sendSegments(datagrams, segmentSize, dstIp, destination);
        } catch (IllegalStateException closed) {
            // the device is going away: the datagrams are lost, as on a dead link
        }
    }

    @Override
    public void joinMulticast(int group) {
        try {
            port.joinMulticast(group);
        } catch (IOException e) {
            Errno errno = joinErrno(e);
            String why = errno == Errno.EADDRNOTAVAIL ? "" : errno == Errno.ENOBUFS
                    ? " (the kernel's limit of memberships, net.ipv4.igmp_max_memberships or the interface's)"
                    : " (each group the device joins holds one socket: leave groups or raise the process's file"
                    + " descriptor limit, ulimit -n; " + port.joinedGroups() + " groups joined now)";
            throw new RdmaException("ibv_attach_mcast", errno.number(), "cannot join the IPv4 group "
                    + Ipv4.toString(group) + " on " + Ipv4.toString(port.ip()) + ": " + e.getMessage() + why, e);
        }
    }

    /** The errno behind a refused join (Java's socket exceptions carry only strerror's text). */
    static Errno joinErrno(IOException e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains(Errno.EMFILE.description()) && !m.contains(Errno.ENFILE.description())) {
            return Errno.EMFILE;
        }
        if (m.contains(Errno.ENFILE.description())) {
            return Errno.ENFILE;
        }
        if (m.contains(Errno.ENOBUFS.description())) {
            return Errno.ENOBUFS;
        }
        return Errno.EADDRNOTAVAIL;
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
