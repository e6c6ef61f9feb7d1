package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/**
 * Address resolution's source choice ({@code rdma_resolve_addr} without a bound address).
 *
 * <p>The OS routing table decides, through a throw-away connected UDP socket: an unroutable destination fails at
 * once (ENETUNREACH / EHOSTUNREACH), as the kernel's {@code ip_route_output_key} does. An IPv4 loopback destination
 * needs no question: its source is known ({@link #loopbackSource}). The chosen source must be a soft device's
 * address. One exception makes several "hosts" on loopback work: for a destination in 127/8
 * (or ::1) Linux always picks 127.0.0.1 (::1), which the host's soft device usually is not on. Then the
 * destination's own device is used when the destination is local to this fabric (talking to oneself, as the
 * kernel does for any local destination: source = destination), otherwise this fabric's lowest loopback device.
 * So process A on 127.0.0.2 reaches process B on 127.0.0.3 without binding a source address.
 */
final class SourceSelection {
    private SourceSelection() {
    }

    /**
     * The source the OS would use toward {@code destination} (from {@code bound} if it is a specific address).
     *
     * @throws RdmaException synchronously for an unroutable destination
     */
    static InetAddress routeSource(InetAddress bound, InetAddress destination) {
        InetAddress known = loopbackSource(bound, destination);
        if (known != null) {
            return known;
        }
        return askTheOs(bound, destination);
    }

    /**
     * The source toward an IPv4 loopback destination, known without asking: {@code lo} carries all of 127/8, from
     * the bound loopback address if there is one, else from 127.0.0.1, the source of the kernel's {@code local}
     * route. Asking costs a socket and three system calls on every connect, soft-roce's usual case ("hosts" on
     * loopback addresses). {@code null} for any other pair (IPv6 is asked: a host may have it disabled).
     */
    static InetAddress loopbackSource(InetAddress bound, InetAddress destination) {
        if (!(destination instanceof Inet4Address) || !destination.isLoopbackAddress()) {
            return null;
        }
        if (bound == null || bound.isAnyLocalAddress()) {
            return LOOPBACK;
        }
        return bound instanceof Inet4Address && bound.isLoopbackAddress() ? bound : null;
    }

    private static final InetAddress LOOPBACK;

    static {
        try {
            LOOPBACK = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The OS routing table's answer, through a throw-away connected UDP socket. */
    static InetAddress askTheOs(InetAddress bound, InetAddress destination) {
        StandardProtocolFamily family = destination instanceof Inet4Address ? StandardProtocolFamily.INET
                : StandardProtocolFamily.INET6;
        try (DatagramChannel ch = DatagramChannel.open(family)) {
            if (bound != null && !bound.isAnyLocalAddress()) {
                ch.bind(new InetSocketAddress(bound, 0));
            }
            ch.connect(new InetSocketAddress(destination, 9));
            return ((InetSocketAddress) ch.getLocalAddress()).getAddress();
        } catch (IOException | RuntimeException e) {
            throw new RdmaException("rdma_resolve_addr", errno(e).number(), "no route from "
                    + (bound == null ? "this host" : bound.getHostAddress()) + " to " + destination.getHostAddress()
                    + " (" + e.getMessage() + "); check the routing table", e);
        }
    }

    private static Errno errno(Exception e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("No route")) {
            return Errno.EHOSTUNREACH;
        }
        if (m.contains("Invalid argument")) {
            return Errno.EINVAL;
        }
        if (m.contains("assign requested")) {
            return Errno.EADDRNOTAVAIL;
        }
        if (m.contains("not supported") || m.contains("Protocol family")) {
            return Errno.EAFNOSUPPORT;
        }
        return Errno.ENETUNREACH;
    }

    /** The device for a route from {@code osSource} to {@code destination}, or {@code null} (ENODEV). */
    static CmDevice device(CmEnvironment env, InetAddress osSource, InetAddress destination) {
        CmDevice d = env.device(osSource);
        if (d != null || !osSource.isLoopbackAddress() || !destination.isLoopbackAddress()) {
            return d;
        }
        CmDevice self = env.device(destination);
        if (self != null) {
            return self;
        }
        CmDevice best = null;
        for (CmDevice c : env.devices()) {
            if (c.address().isLoopbackAddress() && c.address().getClass() == destination.getClass()
                    && (best == null || compare(c.address(), best.address()) < 0)) {
                best = c;
            }
        }
        return best;
    }

    private static int compare(InetAddress a, InetAddress b) {
        return java.util.Arrays.compareUnsigned(a.getAddress(), b.getAddress());
    }
}
