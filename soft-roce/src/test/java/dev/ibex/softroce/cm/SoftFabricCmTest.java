package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.CmWorld.expect;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.transport.SoftDevice;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CM on the real soft fabric (ServiceLoader-plugged, QP1 over UDP on 127.0.0.2/127.0.0.3, soft QPs): the same
 * event sequences as on the fake verbs, plus RC traffic over the QPs the CM connected.
 */
class SoftFabricCmTest {
    private final Harness h = new Harness();
    private final EventChannel ch = h.fabric.createEventChannel();

    @AfterEach
    void close() {
        h.close();
    }

    private final class Endpoint {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment buf;
        final MemoryRegion mr;

        Endpoint(CmId id, DeviceContext dev, QpType type) {
            pd = dev.allocPd();
            cq = dev.createCompletionQueue(64, null, 0);
            qp = id.createQp(pd, new QpInitAttr(cq, cq, null, new QpCap(16, 16, 1, 1, 0), type, true, null));
            buf = h.arena.allocate(4096);
            mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
        }
    }

    private CmId listener(int port, PortSpace ps) {
        CmId l = ch.createId(ps, "listener");
        l.bind(new InetSocketAddress("127.0.0.2", port));
        l.listen(4);
        return l;
    }

    private CmId routed(int port, PortSpace ps) {
        CmId c = ch.createId(ps, "client");
        c.resolveAddr(new InetSocketAddress("127.0.0.3", 0), new InetSocketAddress("127.0.0.2", port), 1000);
        expect(ch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        CmEvent r = expect(ch, CmEventType.ROUTE_RESOLVED);
        assertThat(r.id().route().mtu()).isEqualTo(((SoftDevice) h.b).activeMtu());
        return c;
    }

    @Test
    void theRetryTimersAnAnsweredHandshakeCancelsLeaveTheSchedulerAtOnce() {
        listener(7479, PortSpace.TCP);
        CmId c = routed(7479, PortSpace.TCP);
        new Endpoint(c, h.b, QpType.RC);
        int before = h.fabric.scheduledTasks();
        c.connect(ConnParam.DEFAULT); // arms the REQ's retry timer (256 ms here)
        CmId s = expect(ch, CmEventType.CONNECT_REQUEST).id();
        new Endpoint(s, h.a, QpType.RC);
        s.accept(ConnParam.DEFAULT); // arms the REP's (128 ms); the REP cancels the REQ's, the RTU the REP's
        expect(ch, CmEventType.ESTABLISHED);
        expect(ch, CmEventType.ESTABLISHED);
        // both were cancelled by their answers: kept until their deadlines they were 2 more here; the CM's timers
        // share one tick (CmTimerQueue), which stays for the timers to come
        assertThat(h.fabric.scheduledTasks()).isLessThanOrEqualTo(before + 1);
    }

    @Test
    void connectSendDisconnectOverTheSoftFabric() {
        CmId l = listener(7471, PortSpace.TCP);
        CmId c = routed(7471, PortSpace.TCP);
        Endpoint ce = new Endpoint(c, h.b, QpType.RC);
        c.connect(ConnParam.DEFAULT.withPrivateData(new byte[] {1, 2}));
        CmEvent req = expect(ch, CmEventType.CONNECT_REQUEST);
        assertThat(req.listenId()).isSameAs(l);
        CmId s = req.id();
        assertThat(s.device()).isSameAs(h.a);
        Endpoint se = new Endpoint(s, h.a, QpType.RC);
        RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);
        rb.wrId(0, 7).single(0, se.mr.address(), 4096, se.mr.lkey());
        se.qp.postRecv(rb, 1);
        s.accept(ConnParam.DEFAULT.withPrivateData(new byte[] {3}));
        CmEvent est = null;
        CmEvent sest = null;
        while (est == null || sest == null) { // both ESTABLISHED arrive on the one channel, in either order
            CmEvent e = CmWorld.next(ch);
            assertThat(e.type()).isEqualTo(CmEventType.ESTABLISHED);
            if (e.id() == c) {
                est = e;
            } else {
                sest = e;
            }
        }
        assertThat(est.privateData()[0]).isEqualTo((byte) 3);
        assertThat(ce.qp.state()).isEqualTo(QpState.RTS);
        assertThat(se.qp.state()).isEqualTo(QpState.RTS);

        // RC traffic over the QPs the CM connected: a SEND lands in the posted receive.
        ce.buf.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        sb.wrId(0, 9).opcode(0, WrOpcode.SEND).single(0, ce.mr.address(), 8, ce.mr.lkey());
        ce.qp.postSend(sb, 1);
        CompletionBatch wc = CompletionBatch.allocate(h.arena, 4);
        assertThat(Harness.pollAtLeast(se.cq, wc, 1, Duration.ofSeconds(5))).isEqualTo(1);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(se.buf.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x1122334455667788L);

        // A receive still posted when the client disconnects flushes on the server's own disconnect.
        se.qp.postRecv(rb, 1);
        c.disconnect();
        assertThat(ce.qp.state()).isEqualTo(QpState.ERR);
        CmEvent d = expect(ch, CmEventType.DISCONNECTED);
        assertThat(d.id()).isSameAs(s);
        s.disconnect();
        assertThat(Harness.pollAtLeast(se.cq, wc, 1, Duration.ofSeconds(5))).isEqualTo(1);
        assertThat(wc.status(0)).isEqualTo(WcStatus.WR_FLUSH_ERR);
        int disconnected = 0;
        int timewait = 0;
        while (disconnected < 1 || timewait < 2) {
            CmEvent e = CmWorld.next(ch);
            if (e.type() == CmEventType.DISCONNECTED) {
                assertThat(e.id()).isSameAs(c);
                disconnected++;
            } else {
                assertThat(e.type()).isEqualTo(CmEventType.TIMEWAIT_EXIT);
                timewait++;
            }
        }
        c.close();
        s.close();
        l.close();
        ch.close();
        assertThat(h.fabric.resources().get(ResourceKind.CM_ID)).isZero();
        assertThat(h.fabric.resources().get(ResourceKind.EVENT_CHANNEL)).isZero();
        assertThat(h.fabric.resources().get(ResourceKind.QUEUE_PAIR)).isZero();
    }

    @Test
    void theFaultHooksOfAFabricsCmAreReachable() {
        RdmaCm cm = RdmaCmFactory.cmOf(h.fabric);
        assertThat(cm).isNotNull();
        cm.faults().addrTimeout(a -> true);
        CmId c = ch.createId(PortSpace.TCP, null);
        c.resolveAddr(new InetSocketAddress("127.0.0.3", 0), new InetSocketAddress("127.0.0.2", 1), 200);
        assertThat(expect(ch, CmEventType.ADDR_ERROR).status()).isEqualTo(-110);
    }

    @Test
    void aPortNobodyListensOnIsRejected8OnTheWire() {
        CmId c = routed(9999, PortSpace.TCP);
        new Endpoint(c, h.b, QpType.RC);
        c.connect(ConnParam.DEFAULT);
        assertThat(expect(ch, CmEventType.REJECTED).status()).isEqualTo(8);
    }

    @Test
    void sidrResolvesAUdQpOverTheSoftFabric() {
        listener(5000, PortSpace.UDP);
        CmId c = routed(5000, PortSpace.UDP);
        new Endpoint(c, h.b, QpType.UD);
        c.connect(ConnParam.DEFAULT.withPrivateData(new byte[180]));
        CmEvent req = expect(ch, CmEventType.CONNECT_REQUEST);
        assertThat(req.ud()).isNotNull();
        assertThat(req.privateData()).hasSize(180);
        Endpoint se = new Endpoint(req.id(), h.a, QpType.UD);
        req.id().accept(ConnParam.DEFAULT.withPrivateData(new byte[] {4}));
        CmEvent est = CmWorld.next(ch);
        while (est.type() == CmEventType.CONNECT_REQUEST) {
            // a SIDR_REQ retry that crossed our SIDR_REP is a new request (as in cm.c): nobody answers it twice
            est.id().close();
            est = CmWorld.next(ch);
        }
        assertThat(est.type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(est.id()).isSameAs(c);
        assertThat(est.ud().qpNum()).isEqualTo(se.qp.qpNum());
        assertThat(est.ud().qkey()).isEqualTo(UdParam.RDMA_UDP_QKEY);
        assertThat(est.ud().ahAttr().dgid()).isEqualTo(dev.ibex.cm.spi.Gid.of(
                new InetSocketAddress("127.0.0.2", 0).getAddress()));
        assertThat(est.privateData()).hasSize(136);
        assertThat(est.privateData()[0]).isEqualTo((byte) 4);
    }

    @Test
    void thePollerWakesForCmEvents() {
        try (Poller poller = h.fabric.createPoller()) {
            poller.register(ch, "cm");
            CmId c = ch.createId(PortSpace.TCP, null);
            c.resolveAddr(null, new InetSocketAddress("127.0.0.2", 1), 1000);
            Object[] ready = new Object[1];
            int n = poller.poll(Duration.ofSeconds(5).toNanos(), a -> ready[0] = a);
            assertThat(n).isEqualTo(1);
            assertThat(ready[0]).isEqualTo("cm");
            assertThat(ch.poll().type()).isEqualTo(CmEventType.ADDR_RESOLVED);
            poller.deregister(ch);
        }
    }

    @Test
    void closingADeviceUnderLiveIdsReportsDeviceRemoval() {
        CmId l = listener(7472, PortSpace.TCP);
        CmId any = ch.createId(PortSpace.TCP, "wildcard");
        any.bind(new InetSocketAddress("0.0.0.0", 7473));
        any.listen(1);
        ((SoftDevice) h.a).close();
        CmEvent e = expect(ch, CmEventType.DEVICE_REMOVAL);
        assertThat(e.id()).isSameAs(l);
        assertThat(ch.poll()).isNull(); // the wildcard listener is not bound to the device
        l.close();
    }

    @Test
    void aBondingFailoverIsAnAddressChangeForTheIdsBoundToTheAddress() throws Exception {
        CmId onA = listener(7474, PortSpace.TCP);
        CmId onB = ch.createId(PortSpace.TCP, null);
        onB.bind(new InetSocketAddress("127.0.0.3", 0));
        CmId any = ch.createId(PortSpace.TCP, "wildcard");
        any.bind(new InetSocketAddress("0.0.0.0", 7475));
        any.listen(1);
        assertThat(h.fabric.bondingFailover(java.net.InetAddress.getByName("127.0.0.2"))).isEqualTo(1);
        CmEvent e = expect(ch, CmEventType.ADDR_CHANGE);
        assertThat(e.id()).isSameAs(onA);
        assertThat(e.status()).isZero();
        assertThat(ch.poll()).isNull(); // neither the id on the other device nor the wildcard listener
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.fabric.bondingFailover(
                java.net.InetAddress.getByName("127.0.0.9"))).isInstanceOf(IllegalArgumentException.class);
        onA.close();
        onB.close();
        any.close();
    }
}
