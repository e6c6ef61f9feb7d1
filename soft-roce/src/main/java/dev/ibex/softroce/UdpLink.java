package dev.ibex.softroce;

import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.verbs.Link;
import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minimal {@link Link} over one blocking {@link DatagramChannel} with a receive thread, used until the network
 * layer ({@code dev.ibex.softroce.net}: fault injection, multicast) provides links. Sending is
 * {@link DatagramChannel#send}, thread-safe and independent of the blocked receive; the receive thread hands each
 * datagram to the handler in place, in one reused direct buffer. Optionally writes every datagram to a pcap file.
 */
final class UdpLink implements Link {
    private static final Logger LOG = LoggerFactory.getLogger(UdpLink.class);

    private final int address;
    private final int port;
    private final DatagramChannel channel;
    private final Handler handler;
    private final PcapWriter pcap;
    private final Thread thread;
    private final int netdevMtu;
    private volatile boolean closed;

    private UdpLink(int address, int port, int receiveBuffer, Handler handler, PcapWriter pcap) throws IOException {
        this.address = address;
        this.port = port;
        this.handler = handler;
        this.pcap = pcap;
        InetSocketAddress local = new InetSocketAddress(Ipv4.toInetAddress(address), port);
        this.channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            if (receiveBuffer > 0) {
                channel.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
            }
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 1 << 20);
            channel.bind(local);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        this.netdevMtu = mtuOf(local);
        this.thread = Thread.ofPlatform().daemon().name("soft-roce-rx-" + Ipv4.toString(address))
                .unstarted(this::receiveLoop);
        thread.start();
    }

    /** A factory binding real UDP sockets. */
    static Link.Factory factory(SoftRoceConfig config, PcapWriter pcap) {
        return (addr, port, handler) -> {
            try {
                return new UdpLink(addr, port, config.receiveBufferBytes(), handler, pcap);
            } catch (IOException e) {
                throw new dev.ibex.cm.RdmaException("bind", dev.ibex.cm.Errno.EADDRINUSE.number(),
                        "cannot bind UDP " + Ipv4.toString(addr) + ":" + port + " (" + e.getMessage() + "); another"
                                + " process (or kernel rxe, which owns 4791) may use it: set " + SoftRoceConfig.PORT
                                + " or other device addresses", e);
            }
        };
    }

    private static int mtuOf(InetSocketAddress local) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(local.getAddress());
            if (nif == null && local.getAddress().isLoopbackAddress()) {
                nif = NetworkInterface.getByName("lo");
            }
            if (nif != null && nif.getMTU() > 0) {
                return nif.getMTU();
            }
        } catch (SocketException e) {
            LOG.debug("no MTU for {}", local, e);
        }
        return local.getAddress().isLoopbackAddress() ? 65536 : 1500;
    }

    private void receiveLoop() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
        MemorySegment segment = MemorySegment.ofBuffer(buffer);
        while (!closed) {
            buffer.clear();
            InetSocketAddress from;
            try {
                from = (InetSocketAddress) channel.receive(buffer);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("receive on {} failed", Ipv4.toString(address), e);
                }
                continue;
            }
            if (from == null) {
                continue;
            }
            int length = buffer.position();
            int srcIp = from.getAddress().hashCode(); // an Inet4Address hashes to its address: no allocation
            if (pcap != null) {
                pcap.writeIpv4(srcIp, from.getPort(), address, port, segment, 0, length);
            }
            try {
                handler.onPacket(segment, 0, length, srcIp, from.getPort(), address);
            } catch (RuntimeException e) {
                LOG.error("packet handler failed on {}", Ipv4.toString(address), e);
            }
        }
    }

    @Override
    public int address() {
        return address;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void send(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
        if (closed) {
            return;
        }
        int pos = datagram.position();
        // ofBuffer covers [position, limit): take the view before send() moves the position to the limit
        MemorySegment sent = pcap != null ? MemorySegment.ofBuffer(datagram) : null;
        try {
            channel.send(datagram, destination);
        } catch (ClosedChannelException e) {
            return;
        } catch (IOException e) {
            LOG.debug("send to {} failed: {}", destination, e.toString());
            return;
        }
        if (pcap != null) {
            pcap.writeIpv4(address, port, dstIp, destination.getPort(), sent, 0, datagram.position() - pos);
        }
    }

    @Override
    public int netdevMtu() {
        return netdevMtu;
    }

    @Override
    public void close() {
        closed = true;
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close", e);
        }
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
