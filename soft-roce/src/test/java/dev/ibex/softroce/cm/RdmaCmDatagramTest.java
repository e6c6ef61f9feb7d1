package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.CmWorld.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.softroce.mad.CmAttribute;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** UD ids: SIDR service resolution and multicast joins. */
class RdmaCmDatagramTest {
    final CmWorld w = new CmWorld();
    final CmTestHost server = w.host("127.0.0.2");
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

    CmId listen(int port) {
        CmId l = sch.createId(PortSpace.UDP, "udp-listener");
        l.bind(at("127.0.0.2", port));
        l.listen(4);
        return l;
    }

    CmId routed(int port) {
        CmId c = cch.createId(PortSpace.UDP, "udp-client");
        c.resolveAddr(null, at("127.0.0.2", port), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        return c;
    }

    @Test
    void sidrAcceptGivesTheClientTheServersQpnAndQkey() {
        CmId l = listen(5000);
        CmId c = routed(5000);
        QueuePair cq = c.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
        assertThat(cq.state()).isEqualTo(QpState.RTS); // a UD QP is ready at once
        byte[] data = new byte[CmId.MAX_CONNECT_PRIVATE_DATA_UDP];
        data[0] = 1;
        data[179] = 2;
        c.connect(ConnParam.DEFAULT.withPrivateData(data));
        CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
        assertThat(req.listenId()).isSameAs(l);
        assertThat(req.ud()).isNotNull();
        assertThat(req.conn()).isNull();
        assertThat(req.privateData()).isEqualTo(data);
        QueuePair sq = req.id().createQp(server.pd(0), server.qpAttr(0, QpType.UD));
        byte[] reply = new byte[CmId.MAX_ACCEPT_PRIVATE_DATA_UDP];
        reply[135] = 9;
        req.id().accept(ConnParam.DEFAULT.withPrivateData(reply));
        CmEvent est = expect(cch, CmEventType.ESTABLISHED);
        assertThat(est.status()).isZero();
        assertThat(est.ud().qpNum()).isEqualTo(sq.qpNum());
        assertThat(est.ud().qkey()).isEqualTo(UdParam.RDMA_UDP_QKEY);
        assertThat(est.ud().ahAttr().dgid()).isEqualTo(Gid.of(c.peerAddress().getAddress()));
        assertThat(est.privateData()).isEqualTo(reply);
        assertThat(sch.poll()).isNull(); // no event for the passive side of SIDR
        assertThat(w.net.log()).extracting(MadNetwork.Packet::attribute)
                .containsExactly(CmAttribute.SIDR_REQ, CmAttribute.SIDR_REP);
    }

    @Test
    void udLimitsAreEnforcedBeforeSending() {
        listen(5001);
        CmId c = routed(5001);
        assertThatThrownBy(() -> c.connect(ConnParam.DEFAULT.withPrivateData(new byte[181])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("180");
        c.connect(ConnParam.DEFAULT);
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        assertThatThrownBy(() -> s.accept(ConnParam.DEFAULT.withPrivateData(new byte[137])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("136");
        assertThatThrownBy(() -> s.reject(new byte[137]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("136");
    }

    @Test
    void sidrRejectIsUnreachableWithStatus2AndNoListenerStatus1() {
        listen(5002);
        CmId c = routed(5002);
        c.connect(ConnParam.DEFAULT);
        expect(sch, CmEventType.CONNECT_REQUEST).id().reject(new byte[] {7});
        CmEvent e = expect(cch, CmEventType.UNREACHABLE);
        assertThat(e.status()).isEqualTo(2);
        assertThat(e.privateData()[0]).isEqualTo((byte) 7);
        CmId d = routed(5999);
        d.connect(ConnParam.DEFAULT);
        assertThat(expect(cch, CmEventType.UNREACHABLE).status()).isEqualTo(1);
    }

    @Test
    void sidrWithoutAnswerIsUnreachableMinus110() {
        CmId c = cch.createId(PortSpace.UDP, null);
        c.resolveAddr(null, at("127.0.0.9", 5003), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        c.connect(ConnParam.DEFAULT);
        assertThat(expect(cch, CmEventType.UNREACHABLE).status()).isEqualTo(-110);
        assertThat(w.net.sent(CmAttribute.SIDR_REQ)).hasSize(1 + w.timings.maxCmRetries());
    }

    @Test
    void anRcRequestToAUdListenerIsRejected28() {
        listen(5004);
        CmId c = cch.createId(PortSpace.TCP, null);
        c.resolveAddr(null, at("127.0.0.2", 5004), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        c.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        c.connect(ConnParam.DEFAULT);
        // TCP and UDP are different port spaces: nobody listens on TCP 5004
        assertThat(expect(cch, CmEventType.REJECTED).status()).isEqualTo(8);
    }

    // ---- multicast ------------------------------------------------------------------------------------

    private CmId mcId(EventChannel ch, String bindIp) {
        CmId id = ch.createId(PortSpace.UDP, "mc");
        id.bind(at(bindIp, 0));
        return id;
    }

    @Test
    void joinReportsMulticastJoinWithTheGroupAndAttachesTheQpWhenTaken() {
        CmId id = mcId(cch, "127.0.0.3");
        QueuePair qp = id.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
        InetSocketAddress g = at("239.1.2.3", 0);
        id.joinMulticast(g, false, "ctx-1");
        assertThat(((FakeQp) qp).toString()).isNotNull();
        CmEvent e = expect(cch, CmEventType.MULTICAST_JOIN);
        assertThat(e.status()).isZero();
        assertThat(e.context()).isEqualTo("ctx-1");
        assertThat(e.ud().qpNum()).isEqualTo(0xFFFFFF);
        assertThat(e.ud().qkey()).isEqualTo(0x01234567);
        Gid mgid = e.ud().ahAttr().dgid();
        assertThat(mgid.toString()).isEqualTo("::ffff:239.1.2.3");
        assertThat(e.ud().ahAttr().isGlobal()).isTrue();
        assertThat(client.tracker.snapshot().get(dev.ibex.cm.spi.ResourceKind.MULTICAST)).isEqualTo(1);
        assertThat(attached(qp, mgid)).isTrue();
        id.leaveMulticast(g);
        assertThat(attached(qp, mgid)).isFalse();
        assertThat(client.tracker.snapshot().get(dev.ibex.cm.spi.ResourceKind.MULTICAST)).isZero();
        assertThat(((RdmaException) catchThrow(() -> id.leaveMulticast(g))).errno()).isEqualTo(Errno.EADDRNOTAVAIL);
    }

    @Test
    void sendOnlyJoinsDoNotAttach() {
        CmId id = mcId(cch, "127.0.0.3");
        QueuePair qp = id.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
        id.joinMulticast(at("239.1.2.4", 0), true, null);
        CmEvent e = expect(cch, CmEventType.MULTICAST_JOIN);
        assertThat(attached(qp, e.ud().ahAttr().dgid())).isFalse();
    }

    @Test
    void leavingBeforeTheJoinIsTakenCancelsIt() {
        CmId id = mcId(cch, "127.0.0.3");
        QueuePair qp = id.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
        InetSocketAddress g = at("239.1.2.5", 0);
        id.joinMulticast(g, false, null);
        id.leaveMulticast(g);
        id.joinMulticast(at("239.1.2.6", 0), false, "second"); // a later join still reports
        CmEvent e = expect(cch, CmEventType.MULTICAST_JOIN);
        assertThat(e.context()).isEqualTo("second");
        assertThat(cch.poll()).isNull();
        assertThat(attached(qp, Gid.of(g.getAddress()))).isFalse();
    }

    @Test
    void joinRulesFollowTheKernel() {
        CmId unbound = cch.createId(PortSpace.UDP, null);
        assertThat(((RdmaException) catchThrow(() -> unbound.joinMulticast(at("239.1.1.1", 0), false, null)))
                .errno()).isEqualTo(Errno.EINVAL);
        CmId rc = cch.createId(PortSpace.TCP, null);
        rc.bind(at("127.0.0.3", 0));
        assertThat(((RdmaException) catchThrow(() -> rc.joinMulticast(at("239.1.1.1", 0), false, null))).errno())
                .isEqualTo(Errno.EINVAL);
        CmId v6 = mcId(cch, "127.0.0.3");
        RdmaException e = (RdmaException) catchThrow(() -> v6.joinMulticast(
                new InetSocketAddress(InetAddress.ofLiteral("ff0e::1"), 0), false, null));
        assertThat(e.errnoValue()).isEqualTo(524); // ENOTSUPP, synchronously, as cma_iboe_join_multicast
        assertThat(cch.poll()).isNull();
    }

    @Test
    void joinAfterResolvingTheGroupAddress() {
        // mckey's way: rdma_resolve_addr(bind address, group) and then join
        CmId id = cch.createId(PortSpace.UDP, null);
        id.resolveAddr(at("127.0.0.3", 0), at("239.1.2.7", 0), 1000);
        expect(cch, CmEventType.ADDR_RESOLVED);
        id.joinMulticast(at("239.1.2.7", 0), false, null);
        expect(cch, CmEventType.MULTICAST_JOIN);
    }

    @Test
    void closingAnIdLeavesItsGroups() {
        CmId id = mcId(cch, "127.0.0.3");
        QueuePair qp = id.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
        id.joinMulticast(at("239.1.2.8", 0), false, null);
        CmEvent e = expect(cch, CmEventType.MULTICAST_JOIN);
        assertThat(attached(qp, e.ud().ahAttr().dgid())).isTrue();
        id.close();
        assertThat(client.leftovers()).as(client.leftoverKinds().toString()).isEqualTo(1); // the channel
    }

    private static boolean attached(QueuePair qp, Gid mgid) {
        try {
            java.lang.reflect.Field f = FakeQp.class.getDeclaredField("groups");
            f.setAccessible(true);
            return ((java.util.Set<?>) f.get(qp)).contains(mgid);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Throwable catchThrow(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("nothing thrown");
    }
}
