package dev.ibex.softroce.net;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;
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

    private static final int AF_INET = 2, SOCK_DGRAM = 2, SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1, SO_SNDBUF = 7, SO_REUSEPORT = 15, SO_ATTACH_REUSEPORT_CBPF = 51;
    private static final int SOL_UDP = 17, UDP_SEGMENT = 103;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int EAGAIN = 11, ENOBUFS = 105;
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
        return Libc.AVAILABLE;
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
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(Libc.CALL_STATE);
            int fd = (int) Libc.SOCKET.invokeExact(state, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                LOG.debug("UDP segmentation offload off: socket() failed, errno {}", Libc.errno(state));
                return null;
            }
            MemorySegment one = a.allocateFrom(ValueLayout.JAVA_INT, 1);
            MemorySegment sndbuf = a.allocateFrom(ValueLayout.JAVA_INT, sendBufferBytes);
            // the steering program: "return 0", i.e. every datagram to the group's first socket (the channel)
            MemorySegment filter = a.allocate(8, 8);
            filter.set(ValueLayout.JAVA_SHORT, 0, (short) 0x06); // BPF_RET | BPF_K
            filter.set(ValueLayout.JAVA_INT, 4, 0);
            MemorySegment program = a.allocate(16, 8);
            program.set(ValueLayout.JAVA_SHORT, 0, (short) 1);
            program.set(ValueLayout.ADDRESS, 8, filter);
            MemorySegment sa = a.allocate(16, 8);
            sockaddr(sa, ip, udpPort);
            String failed = null;
            if ((int) Libc.SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_REUSEPORT, one, 4) != 0) {
                failed = "SO_REUSEPORT";
            } else if ((int) Libc.SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_SNDBUF, sndbuf, 4) != 0) {
                failed = "SO_SNDBUF";
            } else if ((int) Libc.BIND.invokeExact(state, fd, sa, 16) != 0) {
                failed = "bind";
            } else if ((int) Libc.SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, program,
                    16) != 0) {
                failed = "SO_ATTACH_REUSEPORT_CBPF";
            }
            if (failed != null) {
                LOG.debug("UDP segmentation offload off for {}:{}: {} failed, errno {}",
                        dev.ibex.softroce.wire.Ipv4.toString(ip), udpPort, failed, Libc.errno(state));
                int ignored = (int) Libc.CLOSE.invokeExact(state, fd);
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
        sockaddr(address, dstIp, dstPort);
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

    private static void sockaddr(MemorySegment sa, int ip, int port) {
        sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
        sa.set(ValueLayout.JAVA_BYTE, 2, (byte) (port >>> 8));
        sa.set(ValueLayout.JAVA_BYTE, 3, (byte) port);
        sa.set(ValueLayout.JAVA_BYTE, 4, (byte) (ip >>> 24));
        sa.set(ValueLayout.JAVA_BYTE, 5, (byte) (ip >>> 16));
        sa.set(ValueLayout.JAVA_BYTE, 6, (byte) (ip >>> 8));
        sa.set(ValueLayout.JAVA_BYTE, 7, (byte) ip);
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

    /** The libc functions, looked up once; {@link #AVAILABLE} false when anything needed is missing. */
    private static final class Libc {
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle SOCKET, BIND, SETSOCKOPT, SENDMSG, CLOSE;
        static final boolean AVAILABLE;

        static {
            MethodHandle socket = null, bind = null, setsockopt = null, sendmsg = null, close = null;
            boolean ok = false;
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            String arch = System.getProperty("os.arch", "");
            if (!"false".equalsIgnoreCase(System.getProperty(PROPERTY)) && os.startsWith("linux")
                    && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                    && GsoSocket.class.getModule().isNativeAccessEnabled()) {
                try {
                    Linker linker = Linker.nativeLinker();
                    SymbolLookup libc = linker.defaultLookup();
                    Linker.Option errno = Linker.Option.captureCallState("errno");
                    ValueLayout i = ValueLayout.JAVA_INT;
                    ValueLayout p = ValueLayout.ADDRESS;
                    socket = linker.downcallHandle(libc.find("socket").orElseThrow(),
                            FunctionDescriptor.of(i, i, i, i), errno);
                    bind = linker.downcallHandle(libc.find("bind").orElseThrow(), FunctionDescriptor.of(i, i, p, i),
                            errno);
                    setsockopt = linker.downcallHandle(libc.find("setsockopt").orElseThrow(),
                            FunctionDescriptor.of(i, i, i, i, p, i), errno);
                    sendmsg = linker.downcallHandle(libc.find("sendmsg").orElseThrow(),
                            FunctionDescriptor.of(ValueLayout.JAVA_LONG, i, p, i), errno);
                    close = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(i, i),
                            errno);
                    ok = true;
                } catch (RuntimeException e) {
                    LOG.debug("UDP segmentation offload off: {}", e.toString());
                }
            }
            SOCKET = socket;
            BIND = bind;
            SETSOCKOPT = setsockopt;
            SENDMSG = sendmsg;
            CLOSE = close;
            AVAILABLE = ok;
        }

        static int errno(MemorySegment state) {
            return (int) ERRNO.get(state, 0L);
        }

        private Libc() {
        }
    }
}
