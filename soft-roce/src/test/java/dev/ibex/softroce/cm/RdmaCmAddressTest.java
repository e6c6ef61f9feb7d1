package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.CmWorld.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CmOption;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpType;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Binding, port spaces, address and route resolution, options and listen scopes. */
class RdmaCmAddressTest {
    final CmWorld w = new CmWorld();
    final CmTestHost server = w.host("127.0.0.2", "127.0.1.2");
    final CmTestHost client = w.host("127.0.0.3");
    final EventChannel sch = server.cm.createEventChannel();
    final EventChannel cch = client.cm.createEventChannel();

    @AfterEach
    void close() {
        w.close();
    }

    static InetSocketAddress at(String ip, int port) {
        return new InetSocketAddress(ip, port);
    }

    static RdmaException rdma(Runnable r) {
        try {
            r.run();
        } catch (RdmaException e) {
            return e;
        }
        throw new AssertionError("no RdmaException");
    }

    @Test
    void portZeroPicksAnEphemeralPortAndTheSameAddressTwiceIsInUse() {
        CmId a = sch.createId(PortSpace.TCP, null);
        a.bind(at("127.0.0.2", 0));
        int port = a.localAddress().getPort();
        assertThat(port).isBetween(1024, 65535);
        assertThat(a.device()).isSameAs(server.device(0).context());
        assertThat(a.portNum()).isEqualTo(1);
        CmId b = sch.createId(PortSpace.TCP, null);
        assertThat(rdma(() -> b.bind(at("127.0.0.2", port))).errno()).isEqualTo(Errno.EADDRINUSE);
        b.bind(at("127.0.1.2", port)); // another specific address: fine
        CmId wild = sch.createId(PortSpace.TCP, null);
        assertThat(rdma(() -> wild.bind(at("0.0.0.0", port))).errno()).isEqualTo(Errno.EADDRNOTAVAIL);
        CmId udp = sch.createId(PortSpace.UDP, null);
        udp.bind(at("127.0.0.2", port)); // port spaces are separate
        a.close();
        CmId again = sch.createId(PortSpace.TCP, null);
        again.bind(at("127.0.0.2", port)); // closing released it
    }

    @Test
    void reuseaddrSharesAPortUntilOneListens() {
        CmId a = sch.createId(PortSpace.TCP, null);
        CmId b = sch.createId(PortSpace.TCP, null);
        a.setOption(CmOption.REUSEADDR, 1);
        b.setOption(CmOption.REUSEADDR, 1);
        a.bind(at("127.0.0.2", 6000));
        b.bind(at("127.0.0.2", 6000));
        assertThat(rdma(() -> a.listen(1)).errno()).isEqualTo(Errno.EADDRINUSE);
        b.close();
        a.listen(1);
        assertThat(rdma(() -> a.setOption(CmOption.REUSEADDR, 1)).errno()).isEqualTo(Errno.EINVAL);
    }

    @Test
    void bindingAnAddressWithoutDeviceFails() {
        CmId a = sch.createId(PortSpace.TCP, null);
        assertThat(rdma(() -> a.bind(at("127.0.0.9", 1))).errno()).isEqualTo(Errno.ENODEV);
        assertThat(rdma(() -> a.bind(at("198.51.100.7", 1))).errno()).isEqualTo(Errno.EADDRNOTAVAIL);
        a.bind(at("127.0.0.2", 1)); // the failures left the id IDLE
        assertThat(rdma(() -> a.bind(at("127.0.0.2", 2))).errno()).isEqualTo(Errno.EINVAL);
    }

    @Test
    void resolveWithoutSourcePicksThisHostsLoopbackDevice() {
        CmId c = cch.createId(PortSpace.TCP, null);
        c.resolveAddr(null, at("127.0.0.2", 7471), 1000);
        CmEvent e = expect(cch, CmEventType.ADDR_RESOLVED);
        assertThat(e.status()).isZero();
        // Linux would pick 127.0.0.1 (no device here): the host's own loopback device is used instead.
        assertThat(c.localAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.3");
        assertThat(c.localAddress().getPort()).isPositive();
        assertThat(c.peerAddress()).isEqualTo(at("127.0.0.2", 7471));
        assertThat(c.device()).isSameAs(client.device(0).context());
    }

    @Test
    void resolvingALocalDestinationUsesItsOwnDevice() {
        CmId c = sch.createId(PortSpace.TCP, null);
        c.resolveAddr(null, at("127.0.1.2", 1), 1000);
        expect(sch, CmEventType.ADDR_RESOLVED);
        assertThat(c.localAddress().getAddress().getHostAddress()).isEqualTo("127.0.1.2");
    }

    @Test
    void aSourceWithoutSoftDeviceGivesAddrErrorEnodev() {
        CmId c = cch.createId(PortSpace.TCP, null);
        // routed through the host's real interface (whose address has no soft device), if it has a default route
        try {
            c.resolveAddr(null, at("192.0.2.77", 1), 1000);
        } catch (RdmaException noRoute) {
            org.junit.jupiter.api.Assumptions.abort("this host has no route to 192.0.2.77: " + noRoute.getMessage());
        }
        CmEvent e = CmWorld.next(cch);
        if (e.type() == CmEventType.ADDR_ERROR) {
            assertThat(e.status()).isEqualTo(-19);
        } else {
            throw new AssertionError("expected ADDR_ERROR -ENODEV, got " + e + " from " + c.localAddress());
        }
    }

    @Test
    void anUnroutableDestinationFailsSynchronously() {
        CmId c = cch.createId(PortSpace.TCP, null);
        c.bind(at("127.0.0.3", 0));
        // the kernel refuses loopback-sourced packets to other networks: no route, at once, no event
        RdmaException e = rdma(() -> c.resolveAddr(null, at("198.51.100.1", 1), 1000));
        assertThat(e.errno()).isIn(Errno.EINVAL, Errno.ENETUNREACH, Errno.EHOSTUNREACH);
        assertThat(cch.poll()).isNull();
        c.resolveAddr(null, at("127.0.0.2", 1), 1000); // the id is still ADDR_BOUND and usable
        expect(cch, CmEventType.ADDR_RESOLVED);
    }

    @Test
    void addressAndRouteResolutionQueueTheirEventsBeforeReturningWithoutATimer() {
        // a timer that never runs: both answers used to wait for the scheduler's thread (two wake-ups per connect)
        VirtualTimer stopped = new VirtualTimer();
        try (CmTestHost host = new CmTestHost(w.net, stopped, w.timings, "127.0.0.4")) {
            EventChannel ch = host.cm.createEventChannel();
            CmId c = ch.createId(PortSpace.TCP, null);
            c.resolveAddr(null, at("127.0.0.2", 7471), 1000);
            assertThat(ch.poll()).extracting(CmEvent::type).isEqualTo(CmEventType.ADDR_RESOLVED);
            c.resolveRoute(1000);
            assertThat(ch.poll()).extracting(CmEvent::type).isEqualTo(CmEventType.ROUTE_RESOLVED);
            assertThat(c.route().dgid()).isEqualTo(Gid.of(at("127.0.0.2", 1).getAddress()));
            assertThat(stopped.pending()).isZero();
        }
    }

    @Test
    void arpTimeoutsComeFromTheFaultHookAfterTheTimeout() {
        client.cm.faults().addrTimeout(a -> a.getHostAddress().equals("127.0.0.2"));
        CmId c = cch.createId(PortSpace.TCP, null);
        long start = System.nanoTime();
        c.resolveAddr(null, at("127.0.0.2", 1), 100);
        CmEvent e = expect(cch, CmEventType.ADDR_ERROR);
        assertThat(e.status()).isEqualTo(-110);
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(95);
        client.cm.faults().clear();
        c.resolveAddr(null, at("127.0.0.2", 1), 100); // back in ADDR_BOUND: may resolve again
        expect(cch, CmEventType.ADDR_RESOLVED);
    }

    @Test
    void theRoutePathRecordIsSynthesisedLikeRoce() {
        CmId c = cch.createId(PortSpace.TCP, null);
        c.setOption(CmOption.TOS, 0x68);
        c.setOption(CmOption.ACK_TIMEOUT, 14);
        c.resolveAddr(null, at("127.0.0.2", 7471), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        PathRecord p = c.route();
        assertThat(p.sgid()).isEqualTo(Gid.of(c.localAddress().getAddress()));
        assertThat(p.dgid()).isEqualTo(Gid.of(c.peerAddress().getAddress()));
        assertThat(p.sgid().isIpv4Mapped()).isTrue();
        assertThat(p.pkey()).isEqualTo(0xFFFF);
        assertThat(p.hopLimit()).isEqualTo(64);
        assertThat(p.trafficClass()).isEqualTo(0x68);
        assertThat(p.packetLifeTime()).isEqualTo(13); // ACK_TIMEOUT − 1
        assertThat(p.mtu()).isEqualTo(Mtu.MTU_4096);
        CmId d = cch.createId(PortSpace.TCP, null);
        d.resolveAddr(null, at("127.0.0.2", 7471), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        d.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        assertThat(d.route().packetLifeTime()).isEqualTo(w.timings.packetLifeTime());
        assertThat(d.route().trafficClass()).isZero();
    }

    @Test
    void routeErrorsComeFromTheFaultHook() {
        client.cm.faults().routeError(a -> true, -110);
        CmId c = cch.createId(PortSpace.TCP, null);
        c.resolveAddr(null, at("127.0.0.2", 7471), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(50);
        assertThat(expect(cch, CmEventType.ROUTE_ERROR).status()).isEqualTo(-110);
        client.cm.faults().clear();
        c.resolveRoute(50); // back in ADDR_RESOLVED
        expect(cch, CmEventType.ROUTE_RESOLVED);
    }

    @Test
    void callsOutOfOrderAreInvalidAndBadArgumentsIllegal() {
        CmId c = cch.createId(PortSpace.TCP, null);
        assertThat(rdma(() -> c.resolveRoute(1)).errno()).isEqualTo(Errno.EINVAL);
        assertThat(rdma(() -> c.connect(ConnParam.DEFAULT)).errno()).isEqualTo(Errno.EINVAL);
        assertThat(rdma(() -> c.accept(ConnParam.DEFAULT)).errno()).isEqualTo(Errno.EINVAL);
        assertThat(rdma(() -> c.reject(null)).errno()).isEqualTo(Errno.EINVAL);
        assertThat(rdma(() -> c.disconnect()).errno()).isEqualTo(Errno.EINVAL);
        assertThat(rdma(() -> c.createQp(client.pd(0), client.qpAttr(0, QpType.RC))).errno())
                .isEqualTo(Errno.EINVAL);
        assertThatThrownBy(() -> c.setOption(CmOption.TOS, 256)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.setOption(CmOption.ACK_TIMEOUT, 32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.bind(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.resolveAddr(null, InetSocketAddress.createUnresolved("x", 1), 1))
                .isInstanceOf(IllegalArgumentException.class);
        CmId u = cch.createId(PortSpace.UDP, null);
        assertThat(rdma(() -> u.setOption(CmOption.ACK_TIMEOUT, 14)).errno()).isEqualTo(Errno.EINVAL);
        c.close();
        assertThatThrownBy(() -> c.bind(at("127.0.0.3", 0))).isInstanceOf(IllegalStateException.class);
        c.close(); // idempotent
    }

    @Test
    void aWildcardListenerCoversEveryDeviceAndASpecificOneOnlyItsOwn() {
        CmId any = sch.createId(PortSpace.TCP, "any");
        any.bind(at("0.0.0.0", 7000));
        any.listen(4);
        CmId spec = sch.createId(PortSpace.TCP, "spec");
        spec.bind(at("127.0.1.2", 7001));
        spec.listen(4);
        for (String dst : new String[] {"127.0.0.2", "127.0.1.2"}) {
            CmId c = routedTo(dst, 7000);
            c.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
            c.connect(ConnParam.DEFAULT);
            CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
            assertThat(req.listenId()).isSameAs(any);
            assertThat(req.id().localAddress().getAddress().getHostAddress()).isEqualTo(dst);
        }
        CmId other = routedTo("127.0.0.2", 7001); // nobody listens on 7001 at 127.0.0.2's device
        other.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        other.connect(ConnParam.DEFAULT);
        assertThat(expect(cch, CmEventType.REJECTED).status()).isEqualTo(8);
        CmId ok = routedTo("127.0.1.2", 7001);
        ok.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        ok.connect(ConnParam.DEFAULT);
        assertThat(expect(sch, CmEventType.CONNECT_REQUEST).listenId()).isSameAs(spec);
    }

    @Test
    void listenWithoutBindUsesAnEphemeralWildcardPort() {
        CmId l = sch.createId(PortSpace.TCP, null);
        l.listen(0);
        assertThat(l.localAddress().getAddress().isAnyLocalAddress()).isTrue();
        assertThat(l.localAddress().getPort()).isPositive();
        assertThat(l.device()).isNull();
    }

    private CmId routedTo(String dst, int port) {
        CmId c = cch.createId(PortSpace.TCP, null);
        c.resolveAddr(null, at(dst, port), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        return c;
    }
}
