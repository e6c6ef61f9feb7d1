package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PathRecord;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Address and route resolution of one {@link SoftCmId}: the kernel's {@code cma_bind_addr}, {@code rdma_resolve_addr}
 * with its {@code addr_handler}, and {@code rdma_resolve_route} with the path record RoCE synthesises locally
 * ({@code cma_resolve_iboe_route}). It owns the id's port binding and the timer of an injected slow query, so that
 * IDLE → ADDR_BOUND → ADDR_QUERY → ADDR_RESOLVED → ROUTE_QUERY → ROUTE_RESOLVED reads in one place. Both answers are
 * known when asked (the device's own address table, a path record made locally), so the event is queued on the id's
 * channel before the call returns and the caller takes it at its next poll: no thread hand-off per connect. Only an
 * injected fault ({@link CmFaults}) answers later, from the timer, after the caller's timeout.
 *
 * <p>Threading: called under the service's lock; its timer callbacks take that lock.
 */
final class CmAddress {
    private final SoftCmId id;
    private final RdmaCm svc;
    private boolean portBound;
    /** The injected slow address or route query in progress, cancelled when the id goes. */
    private CmTimer.Cancellable work;

    CmAddress(SoftCmId id) {
        this.id = id;
        this.svc = id.svc;
    }

    static void check(InetSocketAddress a, String what) {
        if (a == null) {
            throw new IllegalArgumentException(what + " is required");
        }
        if (a.isUnresolved()) {
            throw new IllegalArgumentException(what + " " + a + " is unresolved");
        }
    }

    /** {@code rdma_bind_addr}. */
    void bindAddr(InetSocketAddress address) {
        if (id.state != RdmaCmState.IDLE) {
            throw SoftCmId.invalid("rdma_bind_addr", id.stateWhy());
        }
        bind(address);
    }

    /** {@code cma_bind_addr}: the device of a specific address, a port of the id's port space; ADDR_BOUND. */
    void bind(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        CmDevice d = null;
        if (!ip.isAnyLocalAddress()) {
            d = svc.env.device(ip);
            if (d == null) {
                boolean local = ip.isLoopbackAddress() || isInterfaceAddress(ip);
                throw new RdmaException("rdma_bind_addr", local ? Errno.ENODEV : Errno.EADDRNOTAVAIL,
                        ip.getHostAddress() + (local ? " has no soft-roce device; open the fabric with a device on it"
                                : " is not a local address"));
            }
        }
        if (!id.afOnlySet) {
            id.afOnly = ip instanceof Inet4Address; // IPv6 follows net.ipv6.bindv6only (0)
        }
        id.src = new InetSocketAddress(ip, address.getPort());
        id.device = d;
        int port = svc.ports.bind(id, address.getPort());
        id.src = new InetSocketAddress(ip, port);
        portBound = true;
        id.state = RdmaCmState.ADDR_BOUND;
    }

    private static boolean isInterfaceAddress(InetAddress ip) {
        try {
            return java.net.NetworkInterface.getByInetAddress(ip) != null;
        } catch (java.net.SocketException e) {
            return false;
        }
    }

    /**
     * {@code rdma_resolve_addr}: binds an IDLE id, picks the device, queues ADDR_RESOLVED or ADDR_ERROR (an injected
     * timeout: ADDR_ERROR after {@code timeoutMs}).
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        if (id.state == RdmaCmState.IDLE) {
            InetAddress any = destination.getAddress() instanceof Inet4Address ? anyV4() : anyV6();
            bind(source != null ? source : new InetSocketAddress(any, 0));
        }
        if ((id.src.getAddress() instanceof Inet4Address) != (destination.getAddress() instanceof Inet4Address)) {
            throw SoftCmId.invalid("rdma_resolve_addr", "source and destination families differ");
        }
        if (id.state != RdmaCmState.ADDR_BOUND) {
            throw SoftCmId.invalid("rdma_resolve_addr", id.stateWhy());
        }
        InetAddress dip = destination.getAddress();
        CmDevice d = id.device;
        if (dip.isAnyLocalAddress()) {
            // cma_resolve_loopback: the destination is ourselves
            if (d == null) {
                d = firstLoopbackDevice(dip);
            }
        } else if (d == null) {
            InetAddress osSource = SourceSelection.routeSource(null, dip); // may throw: synchronous failure
            d = SourceSelection.device(svc.env, osSource, dip);
        } else if (!dip.isMulticastAddress()) {
            SourceSelection.routeSource(d.address(), dip);
        }
        id.state = RdmaCmState.ADDR_QUERY;
        id.dst = new InetSocketAddress(dip.isAnyLocalAddress() && d != null ? d.address() : dip,
                destination.getPort());
        if (svc.faults().addrTimesOut(dip)) {
            work = svc.env.timer().schedule(Math.max(0, timeoutMs), () -> svc.locked(() -> addrResolved(null,
                    -SoftCmId.ETIMEDOUT)));
        } else {
            // the answer is known now: queue the event at once (the caller takes it at its next poll, after this
            // returns) instead of handing it to the scheduler's thread, which cost two thread wake-ups per connect
            addrResolved(d, d == null ? -Errno.ENODEV.number() : 0);
        }
    }

    private CmDevice firstLoopbackDevice(InetAddress like) {
        for (CmDevice c : svc.env.devices()) {
            if (c.address().getClass() == like.getClass()) {
                return c;
            }
        }
        return null;
    }

    static InetAddress anyV4() {
        try {
            return InetAddress.getByAddress(new byte[4]);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static InetAddress anyV6() {
        try {
            return InetAddress.getByAddress(new byte[16]);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** {@code addr_handler}. */
    private void addrResolved(CmDevice d, int status) {
        work = null;
        if (id.closed || id.state != RdmaCmState.ADDR_QUERY) {
            return;
        }
        if (status != 0) {
            id.state = RdmaCmState.ADDR_BOUND;
            id.emit(CmEventType.ADDR_ERROR, status);
            return;
        }
        if (id.device == null) {
            id.device = d;
            id.src = new InetSocketAddress(d.address(), id.src.getPort());
        }
        id.state = RdmaCmState.ADDR_RESOLVED;
        id.emit(CmEventType.ADDR_RESOLVED, 0);
    }

    /** {@code rdma_resolve_route}: queues ROUTE_RESOLVED (an injected failure: ROUTE_ERROR after {@code timeoutMs}). */
    void resolveRoute(int timeoutMs) {
        if (id.state != RdmaCmState.ADDR_RESOLVED) {
            throw SoftCmId.invalid("rdma_resolve_route", id.stateWhy());
        }
        id.state = RdmaCmState.ROUTE_QUERY;
        if (svc.faults().routeFails(id.dst.getAddress())) {
            int status = svc.faults().routeErrorStatus();
            work = svc.env.timer().schedule(Math.max(0, timeoutMs), () -> svc.locked(() -> routeResolved(null,
                    status)));
            return;
        }
        routeResolved(roceRoute(), 0); // synthesised locally: queued at once, as ADDR_RESOLVED is
    }

    /** {@code cma_resolve_iboe_route}: the path record RoCE synthesises locally. */
    private PathRecord roceRoute() {
        InetSocketAddress src = id.src;
        InetSocketAddress dst = id.dst;
        int plt = id.ackTimeout > 0 ? id.ackTimeout - 1 : svc.timings.packetLifeTime();
        int flowLabel = (src.getPort() * 31 + dst.getPort()) & 0xFFFFF;
        return new PathRecord(Gid.of(src.getAddress()), Gid.of(dst.getAddress()), 0, 0, flowLabel, 64,
                id.tos < 0 ? 0 : id.tos, 0xFFFF, 0, id.device.activeMtu(), 0, plt);
    }

    private void routeResolved(PathRecord path, int status) {
        work = null;
        if (id.closed || id.state != RdmaCmState.ROUTE_QUERY) {
            return;
        }
        if (status != 0) {
            id.state = RdmaCmState.ADDR_RESOLVED;
            id.emit(CmEventType.ROUTE_ERROR, status);
            return;
        }
        id.route = path;
        id.state = RdmaCmState.ROUTE_RESOLVED;
        id.emit(CmEventType.ROUTE_RESOLVED, 0);
    }

    /** Cancels the query in progress (the id is going, or its device went). */
    void cancel() {
        if (work != null) {
            work.cancel();
            work = null;
        }
    }

    /** Gives the id's port back, unless a listener's request id shares its listener's port. */
    void release() {
        if (portBound && id.listener == null) {
            svc.ports.release(id, id.src.getPort());
            portBound = false;
        }
    }
}
