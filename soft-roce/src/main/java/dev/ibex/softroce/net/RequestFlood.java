package dev.ibex.softroce.net;

import dev.ibex.softroce.mad.CmMad;
import dev.ibex.softroce.mad.CmPath;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmaHeader;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.PortSpace;
import dev.ibex.softroce.mad.Qp1;
import dev.ibex.softroce.mad.ServiceId;
import dev.ibex.softroce.wire.Gid;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.PacketBuilder;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;

/**
 * A hostile client for tests and benchmarks: sends RDMA CM connection requests (IB CM REQ MADs with a valid
 * cma_hdr) from one address and never completes a handshake — a SYN flood for RDMA. Each REQ has a fresh random
 * comm ID, CA GUID and QPN, so the target sees a new half-open connection per request. Answers (REP, REJ, MRA) are
 * read and dropped. Not thread-safe; close it to free its socket.
 */
public final class RequestFlood implements AutoCloseable {
    private final DatagramChannel channel;
    private final int srcIp;
    private final int srcPort;
    private final int dstIp;
    private final InetSocketAddress target;
    private final int cmPort;
    private final InetAddress source;
    private final InetAddress destination;
    private final SplittableRandom random;
    private final PacketBuilder builder = new PacketBuilder();
    private final ByteBuffer tx = ByteBuffer.allocateDirect(Qp1.PACKET_SIZE + 64);
    private final ByteBuffer rx = ByteBuffer.allocateDirect(2048);
    private long sent;

    /**
     * Opens the flood's socket, bound to {@code source} and {@code udpPort}.
     *
     * @param source the address the requests come from (bound with the fabric's UDP port, as a soft-roce device
     *     sends: QP1 takes MADs only from that port)
     * @param destination the target device's address
     * @param udpPort the fabric's UDP port
     * @param cmPort the RDMA CM port the target listens on
     * @param seed seeds the random comm IDs, GUIDs and QP numbers, so runs repeat
     * @throws IOException when the socket cannot be bound (the address is not local, or the port is taken without
     *     {@code SO_REUSEADDR})
     */
    public RequestFlood(InetAddress source, InetAddress destination, int udpPort, int cmPort, long seed)
            throws IOException {
        this.channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        channel.bind(new InetSocketAddress(source, udpPort));
        channel.configureBlocking(false);
        this.source = source;
        this.destination = destination;
        this.srcIp = Ipv4.toInt(source);
        this.srcPort = udpPort;
        this.dstIp = Ipv4.toInt(destination);
        this.target = new InetSocketAddress(destination, udpPort);
        this.cmPort = cmPort;
        this.random = new SplittableRandom(seed);
    }

    /**
     * Sends one connection request; returns false when the socket's buffer was full (nothing sent).
     *
     * @return {@code true} when the request was sent
     * @throws IOException when the socket fails
     */
    public boolean send() throws IOException {
        drain();
        byte[] pd = new byte[CmReq.PRIVATE_DATA_SIZE];
        CmaHeader.of(random.nextInt(1024, 65536), source, destination).encode(MemorySegment.ofArray(pd), 0);
        CmPath path = new CmPath(0xFFFF, 0xFFFF, Gid.ofIpv4(srcIp), Gid.ofIpv4(dstIp), 0, 0, 0, 64, 0, false, 18);
        CmReq req = new CmReq(random.nextInt() | 1, 0, ServiceId.of(PortSpace.TCP, cmPort), random.nextLong(), 0,
                random.nextInt(1, 1 << 24), 1, 0, 1, 0, 20, 0, false, random.nextInt(1 << 24), 20, 6, 0xFFFF, 3,
                false, 7, 15, false, 0, path, CmPath.ABSENT, false, Octets.of(pd));
        tx.clear();
        int len = Qp1.encode(builder, MemorySegment.ofBuffer(tx), 0, random.nextInt(1 << 24),
                CmMad.send(random.nextLong(), req), srcIp, dstIp, srcPort, srcPort);
        tx.limit(len);
        if (channel.send(tx, target) == 0) {
            return false;
        }
        sent++;
        return true;
    }

    /**
     * Requests sent so far.
     *
     * @return the number of requests sent
     */
    public long sent() {
        return sent;
    }

    private void drain() throws IOException {
        while (true) {
            rx.clear();
            if (channel.receive(rx) == null) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
