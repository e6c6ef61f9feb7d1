package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.Libc.AF_INET;
import static dev.ibex.softroce.net.Libc.EAGAIN;
import static dev.ibex.softroce.net.Libc.ENOBUFS;
import static dev.ibex.softroce.net.Libc.MSG_DONTWAIT;
import static dev.ibex.softroce.net.Libc.SOL_UDP;
import static dev.ibex.softroce.net.Libc.SO_SNDBUF;
import static dev.ibex.softroce.net.Libc.UDP_SEGMENT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A send-only UDP socket that hands the kernel many datagrams in one system call: UDP generic segmentation offload
 * ({@code UDP_SEGMENT}, Linux 4.18+), the way QUIC stacks reach line rate. A run of RoCEv2 packets of one size laid
 * end to end leaves in one {@code sendmsg}, which the kernel cuts into datagrams of that size (a shorter last one
 * allowed) after one route lookup and one pass down the stack — about half the CPU per datagram of one {@code send}
 * each on loopback ({@code LoopbackBench} "write").
 *
 * <p>Java's {@code DatagramChannel} has no such call, so this one is a libc socket through FFM. It is bound to the
 * port's own address and UDP port — packets keep the source port the peer checks ({@code Route.carries}) and the
 * ICRC covers — beside the port's channel, in one {@code SO_REUSEPORT} group whose steering program sends every
 * arriving datagram to the group's first socket, the channel. So this socket never receives.
 *
 * <p>Used only where it works: Linux on x86-64 or AArch64 (the constants below are theirs), native access enabled
 * for this module ({@code --enable-native-access}), and {@value #PROPERTY} not {@code false}. Anywhere else
 * {@link #available()} is false and the port sends one datagram per call, as before.
 *
 * <p>Threading: {@link #send} is not thread-safe; the port calls it under its transmit lock.
 */
final class GsoSocket implements AutoCloseable {
    /** System property: {@code false} turns segmentation offload off (every datagram is then its own send). */
    static final String PROPERTY = "ibex.softroce.gso";
    /** Most datagrams one call may carry ({@code UDP_MAX_SEGMENTS} of Linux 4.18; newer kernels take 128). */
    static final int MAX_SEGMENTS = 64;
    /** Most UDP payload bytes one call may carry (65,535 less the UDP and IPv4 headers). */
    static final int MAX_BYTES = 65_507;

    private static final Logger LOG = LoggerFactory.getLogger(GsoSocket.class);

    /** {@code struct msghdr}: name @0, namelen @8, iov @16, iovlen @24, control @32, controllen @40. */
    private static final long MSG_NAME = 0, MSG_NAMELEN = 8, MSG_IOV = 16, MSG_IOVLEN = 24, MSG_CONTROL = 32,
            MSG_CONTROLLEN = 40, MSGHDR_SIZE = 56;
    /** {@code CMSG_SPACE(sizeof(uint16_t))} and {@code CMSG_LEN(sizeof(uint16_t))}. */
    private static final long CMSG_SPACE = 24, CMSG_LEN = 18;

    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message, iov, address, control, callState;
    private volatile boolean closed;

    private GsoSocket(int fd) {
        this.fd = fd;
        this.message = arena.allocate(MSGHDR_SIZE, 8);
        this.iov = arena.allocate(16, 8);
        this.address = arena.allocate(16, 8);
        this.control = arena.allocate(CMSG_SPACE, 8);
        this.callState = arena.allocate(Libc.CALL_STATE);
        message.set(ValueLayout.ADDRESS, MSG_NAME, address);
        message.set(ValueLayout.JAVA_INT, MSG_NAMELEN, 16);
        message.set(ValueLayout.ADDRESS, MSG_IOV, iov);
        message.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
        control.set(ValueLayout.JAVA_LONG, 0, CMSG_LEN);
        control.set(ValueLayout.JAVA_INT, 8, SOL_UDP);
        control.set(ValueLayout.JAVA_INT, 12, UDP_SEGMENT);
        address.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
    }

    /** Whether this JVM can open such sockets here (see the class comment); a socket may still fail to open. */
    static boolean available() {
        return Libc.AVAILABLE && !"false".equalsIgnoreCase(System.getProperty(PROPERTY));
    }

    /**
     * Opens the socket on {@code ip:udpPort}, which a channel with {@code SO_REUSEPORT} set must hold already (it is
     * then the group's first socket and receives everything).
     *
     * @return the socket, or null when the kernel refused a step (logged; the port then sends without it)
     */
    static GsoSocket open(int ip, int udpPort, int sendBufferBytes) {
        if (!available()) {
            return null;
        }
        int fd;
        try {
            fd = Libc.openInGroup(ip, udpPort, SO_SNDBUF, sendBufferBytes);
        } catch (java.io.IOException e) {
            LOG.debug("UDP segmentation offload off for {}:{}: {}", dev.ibex.softroce.wire.Ipv4.toString(ip), udpPort,
                    e.getMessage());
            return null;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(Libc.CALL_STATE);
            if (Libc.steer(state, fd, 0) != 0) { // every datagram to the group's first socket, the channel
                LOG.debug("UDP segmentation offload off for {}:{}: SO_ATTACH_REUSEPORT_CBPF failed, errno {}",
                        dev.ibex.softroce.wire.Ipv4.toString(ip), udpPort, Libc.errno(state));
                Libc.closeQuietly(fd);
                return null;
            }
            return new GsoSocket(fd);
        } catch (Throwable t) {
            throw new IllegalStateException("libc call failed", t);
        }
    }

    /** What a {@link #send} did. */
    enum Outcome {
        /** The kernel took the datagrams. */
        SENT,
        /** The kernel could not take them now (send buffer full): lost, as on a wire. */
        DROPPED,
        /** The kernel refused segmentation here (an old kernel, a device without it): send them one by one. */
        UNSUPPORTED
    }

    /**
     * Sends {@code [offset, offset + length)} of {@code buffer} (native memory) to {@code dstIp:dstPort} as
     * datagrams of {@code segmentSize} bytes, the last one possibly shorter.
     *
     * @param buffer      native memory holding the datagrams end to end
     * @param offset      where the first datagram starts
     * @param length      the bytes of all datagrams, at most {@link #MAX_BYTES}
     * @param segmentSize the size of every datagram but the last
     * @param dstIp       the destination IPv4 address as an int
     * @param dstPort     the destination UDP port
     * @return what became of them
     */
    Outcome send(MemorySegment buffer, long offset, int length, int segmentSize, int dstIp, int dstPort) {
        if (closed) {
            return Outcome.DROPPED;
        }
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("segmented sends need native memory");
        }
        java.util.Objects.checkFromIndexSize(offset, length, buffer.byteSize());
        Libc.sockaddr(address, dstIp, dstPort);
        iov.set(ValueLayout.JAVA_LONG, 0, buffer.address() + offset);
        iov.set(ValueLayout.JAVA_LONG, 8, length);
        boolean segmented = length > segmentSize;
        if (segmented) {
            control.set(ValueLayout.JAVA_SHORT, 16, (short) segmentSize);
        }
        message.set(ValueLayout.ADDRESS, MSG_CONTROL, segmented ? control : MemorySegment.NULL);
        message.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, segmented ? CMSG_SPACE : 0);
        long n;
        try {
            n = (long) Libc.SENDMSG.invokeExact(callState, fd, message, MSG_DONTWAIT);
        } catch (Throwable t) {
            throw new IllegalStateException("sendmsg failed", t);
        }
        if (n >= 0) {
            return Outcome.SENT;
        }
        int errno = Libc.errno(callState);
        return errno == EAGAIN || errno == ENOBUFS ? Outcome.DROPPED : Outcome.UNSUPPORTED;
    }

    /** Closes the socket; a later {@link #send} drops. Call it when no send can be running (the port's lock). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) Libc.CLOSE.invokeExact(callState, fd);
        } catch (Throwable t) {
            throw new IllegalStateException("close failed", t);
        } finally {
            arena.close();
        }
    }
}
