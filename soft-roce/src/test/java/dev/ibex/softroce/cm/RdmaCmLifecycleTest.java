package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.CmWorld.expect;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.mad.CmAttribute;
import java.net.InetSocketAddress;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Channels, migration, COMM_EST, device removal, backlog, and teardown in every state. */
class RdmaCmLifecycleTest {
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

    CmId listen(int port, int backlog) {
        CmId l = sch.createId(PortSpace.TCP, "listener");
        l.bind(at("127.0.0.2", port));
        l.listen(backlog);
        return l;
    }

    CmId routed(EventChannel ch, int port) {
        CmId c = ch.createId(PortSpace.TCP, "client");
        c.resolveAddr(null, at("127.0.0.2", port), 1000);
        expect(ch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(ch, CmEventType.ROUTE_RESOLVED);
        return c;
    }

    @Test
    void migrateMovesTheIdAndItsPendingEvents() {
        EventChannel other = client.cm.createEventChannel();
        CmId a = cch.createId(PortSpace.TCP, "a");
        CmId b = cch.createId(PortSpace.TCP, "b");
        a.resolveAddr(null, at("127.0.0.2", 1), 1000);
        b.resolveAddr(null, at("127.0.0.2", 1), 1000);
        Awaitility.await().atMost(CmWorld.WAIT).until(() -> ((SoftEventChannel) cch).pending() == 2);
        a.migrate(other);
        assertThat(a.channel()).isSameAs(other);
        assertThat(expect(other, CmEventType.ADDR_RESOLVED).id()).isSameAs(a);
        assertThat(expect(cch, CmEventType.ADDR_RESOLVED).id()).isSameAs(b);
        a.resolveRoute(1000);
        assertThat(expect(other, CmEventType.ROUTE_RESOLVED).id()).isSameAs(a); // later events follow
        assertThat(cch.poll()).isNull();
    }

    @Test
    void migratingAListenerTakesItsWaitingRequestsAlong() {
        CmId l = listen(7600, 4);
        CmId c = routed(cch, 7600);
        c.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        c.connect(ConnParam.DEFAULT);
        Awaitility.await().atMost(CmWorld.WAIT).until(() -> ((SoftEventChannel) sch).pending() == 1);
        EventChannel other = server.cm.createEventChannel();
        l.migrate(other);
        CmEvent req = expect(other, CmEventType.CONNECT_REQUEST);
        assertThat(req.id().channel()).isSameAs(other);
        assertThat(sch.poll()).isNull();
        req.id().accept(new ConnParam(new byte[0], 1, 1, false, 7, 7, false, 0x99));
        expect(cch, CmEventType.ESTABLISHED);
        expect(other, CmEventType.ESTABLISHED);
    }

    @Test
    void commEstEstablishesThePassiveSideWhenTheRtuIsLost() {
        listen(7601, 4);
        CmId c = routed(cch, 7601);
        c.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        w.net.drop(p -> p.attribute() == CmAttribute.RTU);
        c.connect(ConnParam.DEFAULT);
        CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
        QueuePair sq = s.createQp(server.pd(0), server.qpAttr(0, QpType.RC));
        s.accept(ConnParam.DEFAULT);
        expect(cch, CmEventType.ESTABLISHED);
        assertThat(server.raiseCommEst(sq)).isTrue(); // the first data packet reached the passive QP
        expect(sch, CmEventType.ESTABLISHED);
        // and the application's own rdma_notify is now EISCONN
        assertThat(((RdmaException) thrown(() -> s.notify(AsyncEventType.COMM_EST))).errno())
                .isEqualTo(Errno.EISCONN);
    }

    @Test
    void aFullBacklogDropsRequestsSilentlyUntilTheApplicationTakesOne() {
        // 15 retries (≈ 770 ms of REQ tries) so that the dropped request outlives the test thread's pace
        try (CmWorld slow = new CmWorld(new CmTimings(12, 15, 12, 14, 10))) {
            CmTestHost srv = slow.host("127.0.0.2");
            CmTestHost cli = slow.host("127.0.0.3");
            EventChannel sc = srv.cm.createEventChannel();
            CmId l = sc.createId(PortSpace.TCP, null);
            l.bind(at("127.0.0.2", 7602));
            l.listen(1);
            EventChannel ch1 = cli.cm.createEventChannel();
            EventChannel ch2 = cli.cm.createEventChannel();
            CmId c1 = routed(ch1, 7602);
            CmId c2 = routed(ch2, 7602);
            c1.createQp(cli.pd(0), cli.qpAttr(0, QpType.RC));
            c2.createQp(cli.pd(0), cli.qpAttr(0, QpType.RC));
            c1.connect(ConnParam.DEFAULT);
            Awaitility.await().atMost(CmWorld.WAIT).until(() -> ((SoftEventChannel) sc).pending() == 1);
            c2.connect(ConnParam.DEFAULT);
            Awaitility.await().atMost(CmWorld.WAIT).until(() -> slow.net.sent(CmAttribute.REQ).size() >= 3);
            assertThat(slow.net.sent(CmAttribute.REJ)).isEmpty(); // dropped without an answer
            assertThat(((SoftEventChannel) sc).pending()).isEqualTo(1);
            CmEvent first = expect(sc, CmEventType.CONNECT_REQUEST); // taking it frees the backlog slot
            CmEvent second = expect(sc, CmEventType.CONNECT_REQUEST); // the next retry gets in
            assertThat(second.id()).isNotSameAs(first.id());
            assertThat(ch2.poll()).isNull();
        }
    }

    @Test
    void deviceRemovalReachesIdsOnTheDevice() {
        CmId l = listen(7603, 4);
        CmId c = routed(cch, 7603);
        server.remove(server.device(0));
        CmEvent e = expect(sch, CmEventType.DEVICE_REMOVAL);
        assertThat(e.id()).isSameAs(l);
        c.createQp(client.pd(0), client.qpAttr(0, QpType.RC));
        c.connect(ConnParam.DEFAULT);
        assertThat(expect(cch, CmEventType.UNREACHABLE).status()).isEqualTo(-110); // nobody answers any more
        l.close();
        assertThat(server.cm.ibCm().liveIds()).isZero();
    }

    @Test
    void closingAChannelClosesItsIds() {
        CmId l = listen(7604, 4);
        assertThat(l).isNotNull();
        sch.close();
        assertThat(server.leftovers()).as(server.leftoverKinds().toString()).isZero();
        assertThat(server.cm.liveIds()).isZero();
    }

    /** Where each id of a scenario is when everything is closed. */
    enum Stage {
        IDLE, BOUND, ADDR_QUERY, ADDR_RESOLVED, ROUTE_RESOLVED, LISTENING, LISTENING_WITH_REQUEST, REQ_SENT,
        CONNECT_REQUEST_TAKEN, ACCEPTED, CONNECT_RESPONSE, ESTABLISHED, DISCONNECTING, DISCONNECTED, TIMEWAIT_EXITED,
        REJECTED, UD_CONNECTED, MULTICAST_JOINED, MULTICAST_JOINING
    }

    @ParameterizedTest
    @EnumSource(Stage.class)
    void closingInEveryStateLeavesNothingBehind(Stage stage) {
        run(stage);
        // close everything on both hosts, in any order, then let in-flight MADs settle
        sch.close();
        cch.close();
        Awaitility.await().atMost(CmWorld.WAIT).untilAsserted(() -> {
            assertThat(server.leftovers()).as("server " + server.leftoverKinds()).isZero();
            assertThat(client.leftovers()).as("client " + client.leftoverKinds()).isZero();
            assertThat(server.cm.ibCm().liveIds()).isZero();
            assertThat(client.cm.ibCm().liveIds()).isZero();
            assertThat(server.cm.ports.size()).isZero();
            assertThat(client.cm.ports.size()).isZero();
        });
    }

    private void run(Stage stage) {
        Consumer<CmId> rcQp = id -> id.createQp((id.channel() == sch ? server : client).pd(0),
                (id.channel() == sch ? server : client).qpAttr(0, QpType.RC));
        switch (stage) {
            case IDLE -> cch.createId(PortSpace.TCP, null);
            case BOUND -> cch.createId(PortSpace.TCP, null).bind(at("127.0.0.3", 0));
            case ADDR_QUERY -> cch.createId(PortSpace.TCP, null).resolveAddr(null, at("127.0.0.2", 1), 1000);
            case ADDR_RESOLVED -> {
                CmId c = cch.createId(PortSpace.TCP, null);
                c.resolveAddr(null, at("127.0.0.2", 1), 1000);
                expect(cch, CmEventType.ADDR_RESOLVED);
                rcQp.accept(c);
            }
            case ROUTE_RESOLVED -> rcQp.accept(routed(cch, 1));
            case LISTENING -> listen(7610, 4);
            case LISTENING_WITH_REQUEST -> {
                listen(7611, 4);
                CmId c = routed(cch, 7611);
                rcQp.accept(c);
                c.connect(ConnParam.DEFAULT);
                Awaitility.await().atMost(CmWorld.WAIT).until(() -> ((SoftEventChannel) sch).pending() == 1);
            }
            case REQ_SENT -> {
                CmId c = routed(cch, 7612);
                rcQp.accept(c);
                w.net.drop(p -> true);
                c.connect(ConnParam.DEFAULT);
            }
            case CONNECT_REQUEST_TAKEN, ACCEPTED, ESTABLISHED, DISCONNECTING, DISCONNECTED, TIMEWAIT_EXITED, REJECTED -> {
                listen(7613, 4);
                CmId c = routed(cch, 7613);
                rcQp.accept(c);
                c.connect(ConnParam.DEFAULT);
                CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
                if (stage == Stage.CONNECT_REQUEST_TAKEN) {
                    return;
                }
                if (stage == Stage.REJECTED) {
                    s.reject(new byte[] {1});
                    expect(cch, CmEventType.REJECTED);
                    return;
                }
                rcQp.accept(s);
                if (stage == Stage.ACCEPTED) {
                    w.net.drop(p -> p.attribute() == CmAttribute.RTU);
                }
                s.accept(ConnParam.DEFAULT);
                expect(cch, CmEventType.ESTABLISHED);
                if (stage == Stage.ACCEPTED) {
                    return;
                }
                expect(sch, CmEventType.ESTABLISHED);
                if (stage == Stage.ESTABLISHED) {
                    return;
                }
                c.disconnect();
                expect(sch, CmEventType.DISCONNECTED);
                if (stage == Stage.DISCONNECTING) {
                    return;
                }
                s.disconnect();
                expect(cch, CmEventType.DISCONNECTED);
                if (stage == Stage.DISCONNECTED) {
                    return;
                }
                expect(cch, CmEventType.TIMEWAIT_EXIT);
                expect(sch, CmEventType.TIMEWAIT_EXIT);
            }
            case CONNECT_RESPONSE -> {
                listen(7614, 4);
                CmId c = routed(cch, 7614);
                c.connect(new ConnParam(new byte[0], 1, 1, false, 7, 7, false, 0x55));
                expect(sch, CmEventType.CONNECT_REQUEST).id().accept(new ConnParam(new byte[0], 1, 1, false, 7, 7,
                        false, 0x66));
                expect(cch, CmEventType.CONNECT_RESPONSE);
            }
            case UD_CONNECTED -> {
                CmId l = sch.createId(PortSpace.UDP, null);
                l.bind(at("127.0.0.2", 7615));
                l.listen(1);
                CmId c = cch.createId(PortSpace.UDP, null);
                c.resolveAddr(null, at("127.0.0.2", 7615), 1000);
                expect(cch, CmEventType.ADDR_RESOLVED);
                c.resolveRoute(1000);
                expect(cch, CmEventType.ROUTE_RESOLVED);
                c.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
                c.connect(ConnParam.DEFAULT);
                CmId s = expect(sch, CmEventType.CONNECT_REQUEST).id();
                s.createQp(server.pd(0), server.qpAttr(0, QpType.UD));
                s.accept(ConnParam.DEFAULT);
                expect(cch, CmEventType.ESTABLISHED);
            }
            case MULTICAST_JOINED, MULTICAST_JOINING -> {
                CmId m = cch.createId(PortSpace.UDP, null);
                m.bind(at("127.0.0.3", 0));
                m.createQp(client.pd(0), client.qpAttr(0, QpType.UD));
                m.joinMulticast(at("239.9.9.9", 0), false, null);
                if (stage == Stage.MULTICAST_JOINED) {
                    expect(cch, CmEventType.MULTICAST_JOIN);
                }
            }
        }
    }

    private static Throwable thrown(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("nothing thrown");
    }

    @Test
    void theLeakCheckCountsLiveIds() {
        CmId id = cch.createId(PortSpace.TCP, null);
        assertThat(client.leftovers()).isEqualTo(2); // the channel and the id
        id.close();
        assertThat(client.leftovers()).isEqualTo(1);
    }
}
