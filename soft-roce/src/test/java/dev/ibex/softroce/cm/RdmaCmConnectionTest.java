package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.CmWorld.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.mad.CmAttribute;
import dev.ibex.softroce.mad.CmRep;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RC connection event sequences of the RDMA CM, as librdmacm delivers them. */
class RdmaCmConnectionTest {
    static final String SERVER = "127.0.0.2";
    static final String CLIENT = "127.0.0.3";
    final CmWorld w = new CmWorld();
    final CmTestHost server = w.host(SERVER);
    final CmTestHost client = w.host(CLIENT);
    final EventChannel sch = server.cm.createEventChannel();
    final EventChannel cch = client.cm.createEventChannel();

    @AfterEach
    void close() {
        w.close();
    }

    static InetSocketAddress at(String ip, int port) {
        return new InetSocketAddress(ip, port);
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    CmId listen(int port) {
        CmId l = sch.createId(PortSpace.TCP, "listener");
        l.bind(at(SERVER, port));
        l.listen(8);
        return l;
    }

    /** A client id through ADDR_RESOLVED and ROUTE_RESOLVED toward {@code SERVER:port}. */
    CmId routed(int port) {
        return routed(cch, port);
    }

    CmId routed(EventChannel ch, int port) {
        CmId c = ch.createId(PortSpace.TCP, "client");
        c.resolveAddr(null, at(SERVER, port), 1000);
        expect(ch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(ch, CmEventType.ROUTE_RESOLVED);
        return c;
    }

    QueuePair qp(CmTestHost h, CmId id) {
        return id.createQp(h.pd(0), h.qpAttr(0, QpType.RC));
    }

    /** Connects with QPs on both sides; returns {client, server conn id}. */
    CmId[] connect(int port, byte[] connectData, byte[] acceptData) {
        listen(port);
        CmId c = routed(port);
        QueuePair cq = qp(client, c);
        c.connect(ConnParam.DEFAULT.withPrivateData(connectData));
        CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
        CmId s = req.id();
        qp(server, s);
        s.accept(ConnParam.DEFAULT.withPrivateData(acceptData));
        CmEvent est = expect(cch, CmEventType.ESTABLISHED);
        assertThat(Arrays.copyOf(est.privateData(), acceptData.length)).isEqualTo(acceptData);
        expect(sch, CmEventType.ESTABLISHED);
        assertThat(cq.state()).isEqualTo(QpState.RTS);
        return new CmId[] {c, s};
    }

    @Test
    void connectAndAcceptCarryPrivateDataAtTheLimitsBothWays() {
        byte[] cd = bytes(CmId.MAX_CONNECT_PRIVATE_DATA_TCP, 1);
        byte[] ad = bytes(CmId.MAX_ACCEPT_PRIVATE_DATA, 7);
        CmId l = listen(7471);
        CmId c = routed(7471);
        QueuePair cq = qp(client, c);
        assertThat(cq.state()).isEqualTo(QpState.INIT); // rdma_create_qp moves it to INIT
        c.connect(new ConnParam(cd, 3, 2, false, 6, 5, false, 0));

        CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
        assertThat(req.listenId()).isSameAs(l);
        assertThat(req.id()).isNotSameAs(l);
        assertThat(req.id().context()).isEqualTo("listener");
        assertThat(req.id().channel()).isSameAs(sch);
        assertThat(req.privateData()).hasSize(56).isEqualTo(cd); // zero-padded to the field: here exactly full
        assertThat(req.conn().qpNum()).isEqualTo(cq.qpNum());
        assertThat(req.conn().responderResources()).isEqualTo(2); // = the peer's initiator depth
        assertThat(req.conn().initiatorDepth()).isEqualTo(3);
        assertThat(req.conn().retryCount()).isEqualTo(6);
        assertThat(req.conn().rnrRetryCount()).isEqualTo(5);
        assertThat(req.id().peerAddress()).isEqualTo(c.localAddress());
        assertThat(req.id().localAddress()).isEqualTo(at(SERVER, 7471));
        assertThat(req.id().route().dgid()).isEqualTo(dev.ibex.cm.spi.Gid.of(c.localAddress().getAddress()));

        CmId s = req.id();
        QueuePair sq = qp(server, s);
        s.accept(new ConnParam(ad, 2, 3, false, 7, 4, false, 0));
        CmEvent est = expect(cch, CmEventType.ESTABLISHED);
        assertThat(est.id()).isSameAs(c);
        assertThat(est.privateData()).isEqualTo(ad);
        assertThat(est.conn().qpNum()).isEqualTo(sq.qpNum());
        assertThat(est.conn().rnrRetryCount()).isEqualTo(4);
        CmEvent sest = expect(sch, CmEventType.ESTABLISHED);
        assertThat(sest.id()).isSameAs(s);
        assertThat(sest.privateData()).isEmpty();
        assertThat(cq.state()).isEqualTo(QpState.RTS);
        assertThat(sq.state()).isEqualTo(QpState.RTS);
        assertThat(cq.query(dev.ibex.cm.spi.QpAttr.ALL).destQpNum()).isEqualTo(sq.qpNum());
        assertThat(sq.query(dev.ibex.cm.spi.QpAttr.ALL).destQpNum()).isEqualTo(cq.qpNum());
        // REQ, REP, RTU with one TID; the REQ's service ID names the port
        List<MadNetwork.Packet> log = w.net.log();
        assertThat(log.stream().map(MadNetwork.Packet::attribute))
                .containsExactly(CmAttribute.REQ, CmAttribute.REP, CmAttribute.RTU);
        assertThat(log.stream().map(MadNetwork.Packet::tid).distinct()).hasSize(1);
        assertThat(((dev.ibex.softroce.mad.CmReq) log.get(0).mad().message()).serviceId())
                .isEqualTo(0x0000_0000_0106_0000L + 7471);
        assertThat(((CmRep) log.get(1).mad().message()).privateData().toArray()).isEqualTo(ad);
    }

    @Test
    void privateDataOneByteOverTheLimitIsRefusedBeforeAnythingIsSent() {
        listen(7472);
        CmId c = routed(7472);
        qp(client, c);
        assertThatThrownBy(() -> c.connect(ConnParam.DEFAULT.withPrivateData(new byte[57])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        assertThat(w.net.log()).isEmpty();
        c.connect(ConnParam.DEFAULT.withPrivateData(new byte[56]));
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        assertThatThrownBy(() -> s.accept(ConnParam.DEFAULT.withPrivateData(new byte[197])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("196");
        assertThatThrownBy(() -> s.reject(new byte[149]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("148");
        assertThat(w.net.log()).extracting(MadNetwork.Packet::attribute).containsExactly(CmAttribute.REQ);
    }

    @Test
    void rejectCarriesReason28AndThePrivateDataToTheClient() {
        listen(7473);
        CmId c = routed(7473);
        QueuePair cq = qp(client, c);
        c.connect(ConnParam.DEFAULT);
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        byte[] why = bytes(CmId.MAX_REJECT_PRIVATE_DATA, 33);
        s.reject(why);
        CmEvent rej = expect(cch, CmEventType.REJECTED);
        assertThat(rej.status()).isEqualTo(28);
        assertThat(rej.privateData()).isEqualTo(why);
        assertThat(cq.state()).isEqualTo(QpState.ERR); // librdmacm moves the QP to ERR on REJECTED
        s.close();
        c.close();
        assertThat(server.cm.liveIds()).isEqualTo(1);
    }

    @Test
    void shortPrivateDataArrivesZeroPaddedToTheFieldSize() {
        CmId[] pair = connect(7474, new byte[] {1, 2, 3}, new byte[] {9});
        assertThat(pair[0]).isNotNull();
        CmId l2 = listen(7475);
        CmId c = routed(7475);
        c.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        c.connect(ConnParam.DEFAULT.withPrivateData(new byte[] {5}));
        CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
        assertThat(req.privateData()).hasSize(56);
        assertThat(req.privateData()[0]).isEqualTo((byte) 5);
        assertThat(Arrays.copyOfRange(req.privateData(), 1, 56)).containsOnly(0);
        assertThat(l2).isNotNull();
    }

    @Test
    void connectingToAPortNobodyListensOnIsRejectedWith8() {
        listen(7476);
        CmId c = routed(7999);
        qp(client, c);
        c.connect(ConnParam.DEFAULT);
        CmEvent rej = expect(cch, CmEventType.REJECTED);
        assertThat(rej.status()).isEqualTo(8);
        assertThat(sch.poll()).isNull();
    }

    @Test
    void anUnreachablePeerGivesUnreachableMinus110AfterTheRetries() {
        CmId c = cch.createId(PortSpace.TCP, null);
        c.resolveAddr(null, at("127.0.0.9", 7471), 1000); // routable, but nobody is there
        expect(cch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(cch, CmEventType.ROUTE_RESOLVED);
        qp(client, c);
        long start = System.nanoTime();
        c.connect(ConnParam.DEFAULT);
        CmEvent e = expect(cch, CmEventType.UNREACHABLE);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertThat(e.status()).isEqualTo(-110);
        assertThat(w.net.sent(CmAttribute.REQ)).hasSize(1 + w.timings.maxCmRetries());
        assertThat(ms).isGreaterThanOrEqualTo((1 + w.timings.maxCmRetries()) * w.timings.reqTimeoutMillis() - 5);
    }

    @Test
    void disconnectFromTheClientGivesDisconnectedOnceOnBothSidesThenTimewaitExit() {
        CmId[] p = connect(7477, new byte[0], new byte[0]);
        QueuePair cq = p[0].qp();
        p[0].disconnect();
        assertThat(cq.state()).isEqualTo(QpState.ERR); // before the DREQ leaves
        expect(sch, CmEventType.DISCONNECTED);
        p[1].disconnect(); // answers the DREQ with a DREP
        assertThat(p[1].qp().state()).isEqualTo(QpState.ERR);
        assertThat(expect(cch, CmEventType.DISCONNECTED).status()).isZero();
        expect(cch, CmEventType.TIMEWAIT_EXIT);
        expect(sch, CmEventType.TIMEWAIT_EXIT);
        assertThat(w.net.log().stream().map(MadNetwork.Packet::attribute).toList())
                .endsWith(CmAttribute.DREQ, CmAttribute.DREP);
        assertThat(cch.poll()).isNull();
        assertThat(sch.poll()).isNull();
        p[0].disconnect(); // a second disconnect sends nothing and reports nothing
        assertThat(w.net.sent(CmAttribute.DREQ)).hasSize(1);
    }

    /**
     * Regression: a DREQ with the right comm IDs and QPN from any address tore the connection down. CM messages for
     * an existing id count only from its peer; every kind is dropped and counted otherwise.
     */
    @Test
    void cmMessagesForAConnectionFromAnotherAddressAreDroppedAndCounted() throws Exception {
        CmId[] p = connect(7480, new byte[0], new byte[0]);
        IbCmId s = ((SoftCmId) p[1]).ibCmId();
        IbCmId c = ((SoftCmId) p[0]).ibCmId();
        java.net.InetAddress intruder = java.net.InetAddress.getByName("127.0.0.9");
        java.net.InetAddress serverIp = java.net.InetAddress.getByName(SERVER);
        dev.ibex.softroce.mad.Octets none = dev.ibex.softroce.mad.Octets.EMPTY;
        List<dev.ibex.softroce.mad.CmMessage> forged = List.of(
                new dev.ibex.softroce.mad.CmDreq(c.localId(), s.localId(), s.localQpn, none),
                new dev.ibex.softroce.mad.CmRej(c.localId(), s.localId(), dev.ibex.softroce.mad.CmMessageKind.REP,
                        dev.ibex.softroce.mad.CmRejectReason.CONSUMER_DEFINED, none, none),
                new dev.ibex.softroce.mad.CmDrep(c.localId(), s.localId(), none),
                new dev.ibex.softroce.mad.CmRtu(c.localId(), s.localId(), none));
        long before = server.cm.ibCm().offPathMessages();
        for (dev.ibex.softroce.mad.CmMessage m : forged) {
            w.net.transmit(intruder, serverIp, dev.ibex.softroce.mad.CmMad.send(0x77, m));
        }
        w.quiet(100);
        assertThat(server.cm.ibCm().offPathMessages() - before).isEqualTo(forged.size());
        assertThat(sch.poll()).as("no event on the server").isNull();
        assertThat(cch.poll()).as("no event on the client").isNull();
        assertThat(s.state()).isEqualTo(IbCmState.ESTABLISHED);

        // the same DREQ from the peer's own address is believed
        w.net.transmit(java.net.InetAddress.getByName(CLIENT), serverIp,
                dev.ibex.softroce.mad.CmMad.send(0x78, forged.get(0)));
        expect(sch, CmEventType.DISCONNECTED);
    }

    @Test
    void disconnectFromTheServerWorksTheSameWay() {
        CmId[] p = connect(7478, new byte[0], new byte[0]);
        p[1].disconnect();
        expect(cch, CmEventType.DISCONNECTED);
        p[0].disconnect();
        expect(sch, CmEventType.DISCONNECTED);
        expect(sch, CmEventType.TIMEWAIT_EXIT);
        expect(cch, CmEventType.TIMEWAIT_EXIT);
    }

    @Test
    void bothSidesDisconnectingAtOnceStillReportOnceEach() {
        CmId[] p = connect(7479, new byte[0], new byte[0]);
        p[0].disconnect();
        p[1].disconnect();
        expect(cch, CmEventType.DISCONNECTED);
        expect(sch, CmEventType.DISCONNECTED);
        // Crossed DREQs leave both in DREQ_RCVD (cm.c): the DREP comes from the next disconnect (or close).
        p[0].disconnect();
        p[1].disconnect();
        expect(cch, CmEventType.TIMEWAIT_EXIT);
        expect(sch, CmEventType.TIMEWAIT_EXIT);
        assertThat(cch.poll()).isNull();
        assertThat(sch.poll()).isNull();
    }

    @Test
    void aDreqThatIsNeverAnsweredGivesDisconnectedMinus110() {
        CmId[] p = connect(7480, new byte[0], new byte[0]);
        w.net.drop(pk -> pk.attribute() == CmAttribute.DREQ);
        p[0].disconnect();
        assertThat(expect(cch, CmEventType.DISCONNECTED).status()).isEqualTo(-110);
        expect(cch, CmEventType.TIMEWAIT_EXIT);
        assertThat(w.net.sent(CmAttribute.DREQ)).hasSize(1 + w.timings.maxCmRetries());
    }

    @Test
    void idsWithoutAQpGetConnectResponseAndEstablishThemselves() {
        listen(7481);
        CmId c = routed(7481);
        c.connect(new ConnParam(new byte[0], 1, 1, false, 7, 7, false, 0x4242));
        CmEvent req = expect(sch, CmEventType.CONNECT_REQUEST);
        assertThat(req.conn().qpNum()).isEqualTo(0x4242);
        CmId s = req.id();
        s.accept(new ConnParam(new byte[] {1}, 1, 1, false, 7, 7, false, 0x4343));
        CmEvent resp = expect(cch, CmEventType.CONNECT_RESPONSE);
        assertThat(resp.conn().qpNum()).isEqualTo(0x4343);
        var rtr = c.initQpAttr(QpState.RTR);
        assertThat(rtr.destQpNum()).isEqualTo(0x4343);
        c.establish();
        expect(sch, CmEventType.ESTABLISHED);
        assertThat(cch.poll()).isNull(); // no ESTABLISHED for the id without a QP
    }

    @Test
    void aQpThatCannotReachRtsGivesConnectErrorAndRejects28() {
        listen(7490);
        CmId c = routed(7490);
        QueuePair cq = qp(client, c);
        c.connect(ConnParam.DEFAULT);
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        qp(server, s);
        cq.close(); // the client's QP is gone under its id: RTR after the REP fails
        s.accept(ConnParam.DEFAULT);
        CmEvent err = expect(cch, CmEventType.CONNECT_ERROR);
        assertThat(err.status()).isNegative();
        assertThat(expect(sch, CmEventType.REJECTED).status()).isEqualTo(28);
        assertThat(cch.poll()).isNull(); // librdmacm swallows what follows a CONNECT_ERROR
    }

    @Test
    void connectWithoutQpAndWithoutParametersIsInvalid() {
        CmId c = routed(7482);
        assertThatThrownBy(() -> c.connect(null)).isInstanceOf(RdmaException.class).hasMessageContaining("EINVAL");
    }

    @Test
    void aFailedAcceptRejectsWith28WithoutPrivateData() {
        listen(7483);
        CmId c = routed(7483);
        qp(client, c);
        c.connect(ConnParam.DEFAULT);
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        QueuePair sq = qp(server, s);
        sq.close(); // the QP is gone under the id: moving it to RTR fails
        assertThatThrownBy(() -> s.accept(ConnParam.DEFAULT.withPrivateData(new byte[] {1})))
                .isInstanceOf(RuntimeException.class);
        CmEvent rej = expect(cch, CmEventType.REJECTED);
        assertThat(rej.status()).isEqualTo(28);
        assertThat(rej.privateData()).containsOnly(0);
    }

    @Test
    void closingTheConnectRequestIdUnansweredRejectsWith28() {
        listen(7484);
        CmId c = routed(7484);
        qp(client, c);
        c.connect(ConnParam.DEFAULT);
        expect(sch, CmEventType.CONNECT_REQUEST).id().close();
        assertThat(expect(cch, CmEventType.REJECTED).status()).isEqualTo(28);
    }

    @Test
    void closingWhileConnectingSendsRej4AndThePeerSeesRejected() {
        listen(7485);
        CmId c = routed(7485);
        qp(client, c);
        c.connect(ConnParam.DEFAULT);
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        c.close();
        CmEvent rej = expect(sch, CmEventType.REJECTED);
        assertThat(rej.id()).isSameAs(s);
        assertThat(rej.status()).isEqualTo(4);
    }

    @Test
    void closingAnEstablishedIdDisconnectsThePeer() {
        CmId[] p = connect(7486, new byte[0], new byte[0]);
        p[0].close();
        expect(sch, CmEventType.DISCONNECTED);
        p[1].disconnect();
        expect(sch, CmEventType.TIMEWAIT_EXIT);
    }

    @Test
    void sixtyFourConnectionsToOneListener() throws Exception {
        int n = 64;
        CmId l = listen(7487);
        // The server accepts on its own thread, as an event loop would, while the client connects.
        List<CmId> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger established = new java.util.concurrent.atomic.AtomicInteger();
        Thread acceptor = new Thread(() -> {
            while (servers.size() < n || established.get() < n) {
                CmEvent e = CmWorld.next(sch);
                if (e.type() == CmEventType.ESTABLISHED) {
                    established.incrementAndGet();
                    continue;
                }
                assertThat(e.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
                assertThat(e.listenId()).isSameAs(l);
                qp(server, e.id());
                e.id().accept(ConnParam.DEFAULT.withPrivateData(new byte[] {e.privateData()[0]}));
                servers.add(e.id());
            }
        });
        acceptor.start();
        List<CmId> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            EventChannel own = client.cm.createEventChannel();
            CmId c = routed(own, 7487);
            qp(client, c);
            c.migrate(cch); // all connections report on one channel from here on
            c.connect(ConnParam.DEFAULT.withPrivateData(new byte[] {(byte) i}));
            clients.add(c);
            own.close();
        }
        for (int i = 0; i < n; i++) {
            CmEvent e = expect(cch, CmEventType.ESTABLISHED);
            assertThat(e.privateData()[0]).isEqualTo((byte) clients.indexOf(e.id()));
        }
        acceptor.join(CmWorld.WAIT.toMillis());
        assertThat(servers).hasSize(n);
        assertThat(established).hasValue(n);
        assertThat(servers.stream().map(x -> x.qp().qpNum()).distinct()).hasSize(n);
        assertThat(w.net.sent(CmAttribute.REJ)).isEmpty();
        for (CmId c : clients) {
            c.disconnect();
        }
        java.util.Map<CmId, List<CmEventType>> sev = new java.util.HashMap<>();
        java.util.Map<CmId, List<CmEventType>> cev = new java.util.HashMap<>();
        while (sev.values().stream().mapToInt(List::size).sum() < 2 * n) {
            CmEvent e = CmWorld.next(sch);
            sev.computeIfAbsent(e.id(), k -> new ArrayList<>()).add(e.type());
            if (e.type() == CmEventType.DISCONNECTED) {
                e.id().disconnect();
            }
        }
        while (cev.values().stream().mapToInt(List::size).sum() < 2 * n) {
            CmEvent e = CmWorld.next(cch);
            cev.computeIfAbsent(e.id(), k -> new ArrayList<>()).add(e.type());
        }
        assertThat(sev).hasSize(n).allSatisfy((id, types) -> assertThat(types)
                .containsExactly(CmEventType.DISCONNECTED, CmEventType.TIMEWAIT_EXIT));
        assertThat(cev).hasSize(n).allSatisfy((id, types) -> assertThat(types)
                .containsExactly(CmEventType.DISCONNECTED, CmEventType.TIMEWAIT_EXIT));
    }

    @Test
    void aRequestWithAnotherDestinationAddressThanTheListenersIsRejectedWith28() {
        // a specific listener on the server's device; a forged REQ naming another address in its cma_hdr
        listen(7488);
        CmId c = routed(7488);
        qp(client, c);
        w.net.drop(pk -> false);
        CmTestHost other = w.host("127.0.0.4");
        EventChannel och = other.cm.createEventChannel();
        CmId ol = och.createId(PortSpace.TCP, null);
        ol.bind(at("127.0.0.4", 7488));
        ol.listen(1);
        c.connect(ConnParam.DEFAULT);
        expect(sch, CmEventType.CONNECT_REQUEST);
        assertThat(och.poll()).isNull();
    }
}
