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
 * The libc socket calls the port's FFM sockets make ({@link GsoSocket}, {@link ReceiveSocket}), looked up once, with
 * the Linux constants and {@code struct sockaddr_in} layout they share. {@link #AVAILABLE} is false where they cannot
 * be used: not Linux on x86-64 or AArch64 (the constants are theirs), or native access not enabled for this module
 * ({@code --enable-native-access}); the port then keeps to its {@code DatagramChannel}.
 *
 * <p>Threading: stateless; each caller passes its own call-state segment for {@code errno}.
 */
final class Libc {
    private static final Logger LOG = LoggerFactory.getLogger(Libc.class);

    static final int AF_INET = 2, SOCK_DGRAM = 2, SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1, SO_SNDBUF = 7, SO_RCVBUF = 8, SO_REUSEPORT = 15, SO_RCVTIMEO = 20,
            SO_ATTACH_REUSEPORT_CBPF = 51;
    static final int SOL_UDP = 17, UDP_SEGMENT = 103;
    static final int MSG_DONTWAIT = 0x40;
    static final int SHUT_RD = 0;
    static final int EINTR = 4, EAGAIN = 11, ENOBUFS = 105;
    /** {@code poll}'s event bit: data to read. */
    static final short POLLIN = 1;
    /** {@code sizeof(struct sockaddr_in)}. */
    static final int SOCKADDR_IN = 16;
    /** {@code ioctl}: the receive timestamp of the last datagram read, a {@code struct timespec} (64-bit time). */
    static final long SIOCGSTAMPNS = 0x8907;
    /** {@code clock_gettime}'s clock of the receive timestamps. */
    static final int CLOCK_REALTIME = 0;

    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    static final MethodHandle SOCKET, BIND, SETSOCKOPT, SENDMSG, RECVFROM, PPOLL, SHUTDOWN, CLOSE, IOCTL, CLOCK_GETTIME;
    static final boolean AVAILABLE;

    static {
        MethodHandle socket = null, bind = null, setsockopt = null, sendmsg = null, recvfrom = null, ppoll = null,
                shutdown = null, close = null, ioctl = null, clockGettime = null;
        boolean ok = false;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                && Libc.class.getModule().isNativeAccessEnabled()) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                ValueLayout i = ValueLayout.JAVA_INT;
                ValueLayout l = ValueLayout.JAVA_LONG;
                ValueLayout p = ValueLayout.ADDRESS;
                socket = linker.downcallHandle(libc.find("socket").orElseThrow(), FunctionDescriptor.of(i, i, i, i),
                        errno);
                bind = linker.downcallHandle(libc.find("bind").orElseThrow(), FunctionDescriptor.of(i, i, p, i), errno);
                setsockopt = linker.downcallHandle(libc.find("setsockopt").orElseThrow(),
                        FunctionDescriptor.of(i, i, i, i, p, i), errno);
                sendmsg = linker.downcallHandle(libc.find("sendmsg").orElseThrow(), FunctionDescriptor.of(l, i, p, i),
                        errno);
                recvfrom = linker.downcallHandle(libc.find("recvfrom").orElseThrow(),
                        FunctionDescriptor.of(l, i, p, l, i, p, p), errno);
                // int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask)
                ppoll = linker.downcallHandle(libc.find("ppoll").orElseThrow(), FunctionDescriptor.of(i, p, l, p, p),
                        errno);
                shutdown = linker.downcallHandle(libc.find("shutdown").orElseThrow(), FunctionDescriptor.of(i, i, i),
                        errno);
                close = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(i, i), errno);
                // int ioctl(int fd, unsigned long request, ...): the third argument is variadic
                ioctl = linker.downcallHandle(libc.find("ioctl").orElseThrow(), FunctionDescriptor.of(i, i, l, p),
                        errno, Linker.Option.firstVariadicArg(2));
                // a vDSO read of the clock: never blocks, so the thread needs no state transition
                clockGettime = linker.downcallHandle(libc.find("clock_gettime").orElseThrow(),
                        FunctionDescriptor.of(i, i, p), Linker.Option.critical(false));
                ok = true;
            } catch (RuntimeException e) {
                LOG.debug("soft-roce's libc sockets off: {}", e.toString());
            }
        }
        SOCKET = socket;
        BIND = bind;
        SETSOCKOPT = setsockopt;
        SENDMSG = sendmsg;
        RECVFROM = recvfrom;
        PPOLL = ppoll;
        SHUTDOWN = shutdown;
        CLOSE = close;
        IOCTL = ioctl;
        CLOCK_GETTIME = clockGettime;
        AVAILABLE = ok;
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Writes {@code ip:port} into {@code sa} as a {@code struct sockaddr_in}. */
    static void sockaddr(MemorySegment sa, int ip, int port) {
        sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
        sa.set(ValueLayout.JAVA_BYTE, 2, (byte) (port >>> 8));
        sa.set(ValueLayout.JAVA_BYTE, 3, (byte) port);
        sa.set(ValueLayout.JAVA_BYTE, 4, (byte) (ip >>> 24));
        sa.set(ValueLayout.JAVA_BYTE, 5, (byte) (ip >>> 16));
        sa.set(ValueLayout.JAVA_BYTE, 6, (byte) (ip >>> 8));
        sa.set(ValueLayout.JAVA_BYTE, 7, (byte) ip);
    }

    /** {@return the IPv4 address of the {@code struct sockaddr_in} at {@code sa}, as a big-endian int} */
    static int sockaddrIp(MemorySegment sa) {
        return (sa.get(ValueLayout.JAVA_BYTE, 4) & 0xff) << 24 | (sa.get(ValueLayout.JAVA_BYTE, 5) & 0xff) << 16
                | (sa.get(ValueLayout.JAVA_BYTE, 6) & 0xff) << 8 | sa.get(ValueLayout.JAVA_BYTE, 7) & 0xff;
    }

    /** {@return the UDP port of the {@code struct sockaddr_in} at {@code sa}} */
    static int sockaddrPort(MemorySegment sa) {
        return (sa.get(ValueLayout.JAVA_BYTE, 2) & 0xff) << 8 | sa.get(ValueLayout.JAVA_BYTE, 3) & 0xff;
    }

    /**
     * Opens a UDP socket with {@code SO_REUSEPORT}, its buffer {@code bufferOption} ({@link #SO_SNDBUF} or
     * {@link #SO_RCVBUF}) set to {@code bufferBytes}, and binds it on {@code ip:udpPort}, which joins it to the group of
     * the port's channel there.
     *
     * @return the socket's file descriptor
     * @throws java.io.IOException naming the step the kernel refused and its {@code errno} (nothing is left open)
     */
    static int openInGroup(int ip, int udpPort, int bufferOption, int bufferBytes) throws java.io.IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int fd = (int) SOCKET.invokeExact(state, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw new java.io.IOException("socket() failed, errno " + errno(state));
            }
            MemorySegment one = a.allocateFrom(ValueLayout.JAVA_INT, 1);
            MemorySegment buffer = a.allocateFrom(ValueLayout.JAVA_INT, bufferBytes);
            MemorySegment sa = a.allocate(SOCKADDR_IN, 8);
            sockaddr(sa, ip, udpPort);
            String failed = null;
            if ((int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_REUSEPORT, one, 4) != 0) {
                failed = "SO_REUSEPORT";
            } else if ((int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, bufferOption, buffer, 4) != 0) {
                failed = bufferOption == SO_RCVBUF ? "SO_RCVBUF" : "SO_SNDBUF";
            } else if ((int) BIND.invokeExact(state, fd, sa, SOCKADDR_IN) != 0) {
                failed = "bind";
            }
            if (failed != null) {
                int errno = errno(state);
                int ignored = (int) CLOSE.invokeExact(state, fd);
                throw new java.io.IOException(failed + " failed, errno " + errno);
            }
            return fd;
        } catch (java.io.IOException | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("libc call failed", t);
        }
    }

    /** Closes {@code fd}, ignoring the outcome (a socket that failed a later step). */
    static void closeQuietly(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(a.allocate(CALL_STATE), fd);
        } catch (Throwable t) {
            LOG.debug("close({}) failed: {}", fd, t.toString());
        }
    }

    /**
     * Attaches to the {@code SO_REUSEPORT} group of {@code fd} the steering program "return {@code index}": every
     * datagram for the group's address goes to its socket number {@code index} (in the order they joined).
     *
     * @return 0, or -1 with {@code errno} in {@code state}
     */
    static int steer(MemorySegment state, int fd, int index) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment filter = a.allocate(8, 8);
            filter.set(ValueLayout.JAVA_SHORT, 0, (short) 0x06); // BPF_RET | BPF_K
            filter.set(ValueLayout.JAVA_INT, 4, index);
            MemorySegment program = a.allocate(16, 8);
            program.set(ValueLayout.JAVA_SHORT, 0, (short) 1);
            program.set(ValueLayout.ADDRESS, 8, filter);
            return (int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, program, 16);
        }
    }

    private Libc() {
    }
}
