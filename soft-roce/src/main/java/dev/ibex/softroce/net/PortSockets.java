package dev.ibex.softroce.net;

import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

/**
 * The sockets a {@link SoftPort} binds on its address and UDP port: the {@code DatagramChannel} that receives and
 * sends single datagrams, and beside it, where UDP segmentation offload works ({@link GsoSocket#available()}), the
 * offload socket in one {@code SO_REUSEPORT} group with it. A plain probe bind first keeps a port in use refused, as a
 * plain bind would (another fabric, kernel rxe on 4791), and lets port 0 pick an ephemeral port both then share.
 *
 * @param channel the bound channel (multicast on {@code nif}, loopback of its own multicast on)
 * @param gso     the offload socket, or null: datagram by datagram
 */
record PortSockets(DatagramChannel channel, GsoSocket gso) implements AutoCloseable {

    /** Closes both (a port that failed to open around them). */
    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            if (gso != null) {
                gso.close();
            }
        }
    }

    /**
     * Binds the port's sockets on {@code address:udpPort} (0: an ephemeral port).
     *
     * @throws IOException when the address is not local or the port is in use ({@link java.net.BindException})
     */
    static PortSockets bind(Inet4Address address, int udpPort, NetworkInterface nif, int receiveBufferBytes,
            int sendBufferBytes) throws IOException {
        boolean segmenting = GsoSocket.available();
        int port = udpPort;
        if (segmenting) {
            try (DatagramChannel probe = DatagramChannel.open(StandardProtocolFamily.INET)) {
                probe.bind(new InetSocketAddress(address, udpPort));
                port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
            }
        }
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        GsoSocket gso = null;
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBufferBytes);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, sendBufferBytes);
            ch.setOption(StandardSocketOptions.IP_MULTICAST_IF, nif);
            ch.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            if (segmenting) {
                ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            ch.bind(new InetSocketAddress(address, port));
            if (segmenting) {
                gso = GsoSocket.open(Ipv4.toInt(address), port, sendBufferBytes);
            }
            return new PortSockets(ch, gso);
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (gso != null) {
                gso.close();
            }
            throw e;
        }
    }
}
