package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CmOption;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.cm.spi.QpState;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** RDMA CM lifecycle: resolution, connect/accept/reject with private data, errors, disconnects, scale, migration. */
public interface CmConformance extends Conformance {
    QpCap SMALL = new QpCap(4, 4, 1, 1, 0);

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    /** The received private data starts with what was sent; transports may pad it with zeros up to their limit. */
    static void assertCarries(byte[] received, byte[] sent, int limit) {
        assertThat(received.length).as("private data length").isBetween(sent.length, limit);
        assertThat(Arrays.copyOf(received, sent.length)).isEqualTo(sent);
        for (int i = sent.length; i < received.length; i++) {
            assertThat(received[i]).as("padding byte %d", i).isZero();
        }
    }

    @Test
    default void addressAndRouteResolveToTheServerDevice() throws Exception {
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        EventChannel c = pump().channel();
        CmId id = resolved(c, PortSpace.TCP, listener.localAddress());

        assertThat(id.device()).isNotNull();
        assertThat(id.portNum()).isPositive();
        assertThat(id.localAddress().getAddress()).isEqualTo(provider().client());
        assertThat(id.peerAddress()).isEqualTo(listener.localAddress());
        PathRecord route = id.route();
        assertThat(route).isNotNull();
        assertThat(route.dgid()).isEqualTo(Gid.of(provider().server()));
        assertThat(route.sgid()).isEqualTo(Gid.of(provider().client()));
        assertThat(route.mtu()).isNotNull();
        assertThat(id.device().gidIndexOf(id.portNum(), Gid.of(provider().client()))).isNotNegative();
        assertThat(listener.localAddress().getPort()).isPositive();
    }

    @Test
    default void anUnroutableAddressFailsSynchronouslyOrWithAddrError() throws Exception {
        EventChannel c = pump().channel();
        CmId id = scope().add(c.createId(PortSpace.TCP, null));
        InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getByName("203.0.113.1"), 7471);
        try {
            id.resolveAddr(clientSource(), nowhere, 2000);
        } catch (RdmaException e) {
            assertThat(e.errno()).as("synchronous routing failure").isNotNull();
            return;
        }
        CmEvent e = pump().next(c);
        assertThat(e.type()).isEqualTo(CmEventType.ADDR_ERROR);
        assertThat(e.status()).isNegative();
    }

    @Test
    default void addressResolutionTimesOutWithAddrError() {
        provider().assume(Capability.ADDRESS_RESOLUTION_TIMEOUT);
        EventChannel c = pump().channel();
        CmId id = scope().add(c.createId(PortSpace.TCP, null));
        id.resolveAddr(clientSource(), new InetSocketAddress(provider().silent(), 7471), 500);
        CmEvent e = pump().expect(c, CmEventType.ADDR_ERROR);
        assertThat(e.status()).as("-ETIMEDOUT").isEqualTo(-110);
    }

    @Test
    default void connectAndAcceptCarryPrivateDataUpToTheirLimits() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        CmId client = resolved(c, PortSpace.TCP, listener.localAddress());
        ProtectionDomain pd = pd(client);
        qp(client, pd, cq(client, 8), SMALL, true);

        ConnParam base = ConnParam.DEFAULT.withRdmaDepth(2, 3);
        assertThatThrownBy(() -> client.connect(base.withPrivateData(new byte[CmId.MAX_CONNECT_PRIVATE_DATA_TCP + 1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        byte[] hello = pattern(CmId.MAX_CONNECT_PRIVATE_DATA_TCP, 1);
        client.connect(base.withPrivateData(hello));

        CmEvent request = pump().next(s);
        assertThat(request.type()).as("the over-long connect sent nothing").isEqualTo(CmEventType.CONNECT_REQUEST);
        assertCarries(request.privateData(), hello, CmId.MAX_CONNECT_PRIVATE_DATA_TCP);
        assertThat(request.conn()).isNotNull();
        assertThat(request.conn().responderResources()).as("the client's initiator depth").isEqualTo(3);
        assertThat(request.conn().initiatorDepth()).as("the client's responder resources").isEqualTo(2);
        CmId server = request.id();
        assertThat(server).isNotSameAs(listener);
        assertThat(server.channel()).isSameAs(s);
        qp(server, pd(server), cq(server, 8), SMALL, true);

        assertThatThrownBy(() -> server.accept(ConnParam.DEFAULT.withPrivateData(new byte[CmId.MAX_ACCEPT_PRIVATE_DATA + 1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("196");
        byte[] welcome = pattern(CmId.MAX_ACCEPT_PRIVATE_DATA, 9);
        server.accept(ConnParam.DEFAULT.withPrivateData(welcome));
        CmEvent established = pump().expect(c, CmEventType.ESTABLISHED);
        assertThat(established.id()).isSameAs(client);
        assertCarries(established.privateData(), welcome, CmId.MAX_ACCEPT_PRIVATE_DATA);
        assertThat(pump().expect(s, CmEventType.ESTABLISHED).id()).isSameAs(server);
        assertThat(server.peerAddress().getAddress()).isEqualTo(provider().client());
        assertThat(server.localAddress()).isEqualTo(listener.localAddress());
    }

    @Test
    default void aRejectCarriesReason28AndItsPrivateDataToTheClient() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        CmId client = resolved(c, PortSpace.TCP, listener.localAddress());
        qp(client, pd(client), cq(client, 8), SMALL, true);
        client.connect(ConnParam.DEFAULT);
        CmId server = pump().expect(s, CmEventType.CONNECT_REQUEST).id();

        assertThatThrownBy(() -> server.reject(new byte[CmId.MAX_REJECT_PRIVATE_DATA + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("148");
        byte[] why = pattern(CmId.MAX_REJECT_PRIVATE_DATA, 3);
        server.reject(why);
        CmEvent rejected = pump().expect(c, CmEventType.REJECTED);
        assertThat(rejected.status()).as("IB CM reason: consumer reject").isEqualTo(28);
        assertCarries(rejected.privateData(), why, CmId.MAX_REJECT_PRIVATE_DATA);
    }

    @Test
    default void connectingToAPortNobodyListensOnIsRejectedOrUnreachable() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        int unused = nextPort();
        CmId client = resolved(c, PortSpace.TCP, serverAddress(unused));
        qp(client, pd(client), cq(client, 8), SMALL, true);
        client.connect(ConnParam.DEFAULT);
        CmEvent e = pump().next(c);
        assertThat(e.type()).isIn(CmEventType.REJECTED, CmEventType.UNREACHABLE);
        if (e.type() == CmEventType.REJECTED) {
            assertThat(e.status()).as("IB CM reason 8: invalid service ID").isEqualTo(8);
        }
        assertThat(pump().maybe(s, Duration.ofMillis(200))).as("the listener on another port saw nothing").isEmpty();
        assertThat(listener.localAddress().getPort()).isNotEqualTo(unused);
    }

    private void disconnect(RcPair p, CmId first, EventChannel firstChannel, CmId second, EventChannel secondChannel) {
        first.disconnect();
        CmEvent peerSees = pump().expect(secondChannel, CmEventType.DISCONNECTED);
        assertThat(peerSees.id()).isSameAs(second);
        second.disconnect();
        assertThat(pump().expect(firstChannel, CmEventType.DISCONNECTED).id()).isSameAs(first);
        assertThat(p.clientQp.state()).isEqualTo(QpState.ERR);
        assertThat(p.serverQp.state()).isEqualTo(QpState.ERR);
        if (provider().has(Capability.TIMEWAIT_EXIT)) {
            assertThat(pump().expect(firstChannel, CmEventType.TIMEWAIT_EXIT).id()).isSameAs(first);
            assertThat(pump().expect(secondChannel, CmEventType.TIMEWAIT_EXIT).id()).isSameAs(second);
        }
    }

    @Test
    default void theClientDisconnectsAndBothSidesSeeDisconnected() {
        RcPair p = RcPair.connect(this);
        disconnect(p, p.client, p.clientChannel, p.server, p.serverChannel);
    }

    @Test
    default void theServerDisconnectsAndBothSidesSeeDisconnected() {
        RcPair p = RcPair.connect(this);
        disconnect(p, p.server, p.serverChannel, p.client, p.clientChannel);
    }

    @Test
    default void sixtyFourConnectionsToOneListener() {
        int n = 64;
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        ProtectionDomain clientPd = null;
        CompletionQueue clientCq = null;
        ProtectionDomain serverPd = null;
        CompletionQueue serverCq = null;
        Set<CmId> clients = new HashSet<>();
        for (int i = 0; i < n; i++) {
            CmId id = scope().add(c.createId(PortSpace.TCP, i));
            id.resolveAddr(clientSource(), listener.localAddress(), timeoutMs());
            clients.add(id);
        }
        Set<CmId> clientUp = new HashSet<>();
        Set<CmId> serverUp = new HashSet<>();
        long deadline = System.nanoTime() + pump().timeout().toNanos() * 4;
        while (clientUp.size() < n || serverUp.size() < n) {
            if (System.nanoTime() - deadline > 0) {
                fail("after the deadline: " + clientUp.size() + " clients and " + serverUp.size() + " servers established");
            }
            Optional<CmEvent> ce = pump().maybe(c, Duration.ofMillis(5));
            if (ce.isPresent()) {
                CmEvent e = ce.get();
                switch (e.type()) {
                    case ADDR_RESOLVED -> e.id().resolveRoute(timeoutMs());
                    case ROUTE_RESOLVED -> {
                        if (clientPd == null) {
                            clientPd = pd(e.id());
                            clientCq = cq(e.id(), 4 * n);
                        }
                        qp(e.id(), clientPd, clientCq, SMALL, true);
                        e.id().connect(ConnParam.DEFAULT.withPrivateData(new byte[] {(byte) (int) e.id().context()}));
                    }
                    case ESTABLISHED -> clientUp.add(e.id());
                    default -> fail("client got " + e + " status " + e.status());
                }
            }
            Optional<CmEvent> se = pump().maybe(s, Duration.ofMillis(5));
            if (se.isPresent()) {
                CmEvent e = se.get();
                switch (e.type()) {
                    case CONNECT_REQUEST -> {
                        if (serverPd == null) {
                            serverPd = pd(e.id());
                            serverCq = cq(e.id(), 4 * n);
                        }
                        qp(e.id(), serverPd, serverCq, SMALL, true);
                        e.id().accept(ConnParam.DEFAULT);
                    }
                    case ESTABLISHED -> serverUp.add(e.id());
                    default -> fail("server got " + e + " status " + e.status());
                }
            }
        }
        assertThat(clientUp).isEqualTo(clients);
        assertThat(serverUp).hasSize(n).doesNotContain(listener);
    }

    @Test
    default void anAcceptedIdMigratesToAnotherChannel() {
        RcPair p = RcPair.connect(this);
        EventChannel other = pump().channel();
        p.server.migrate(other);
        assertThat(p.server.channel()).isSameAs(other);
        p.client.disconnect();
        assertThat(pump().expect(other, CmEventType.DISCONNECTED).id()).isSameAs(p.server);
        assertThat(pump().maybe(p.serverChannel, Duration.ofMillis(200))).as("nothing on the old channel").isEmpty();
        p.server.disconnect();
        pump().expect(p.clientChannel, CmEventType.DISCONNECTED);
    }

    @Test
    default void aUserManagedQpConnectsThroughConnectResponseAndEstablish() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        CmId client = resolved(c, PortSpace.TCP, listener.localAddress());
        ProtectionDomain pd = pd(client);
        CompletionQueue cq = cq(client, 16);
        QueuePair own = scope().add(pd.createQueuePair(new QpInitAttr(cq, cq, null, SMALL, QpType.RC, true, null)));
        assertThat(own.state()).isEqualTo(QpState.RESET);
        QpAttr init = client.initQpAttr(QpState.INIT);
        assertThat(init.has(QpAttr.STATE) && init.has(QpAttr.PORT) && init.has(QpAttr.ACCESS_FLAGS)).isTrue();
        assertThat(init.portNum()).isEqualTo(client.portNum());
        own.modify(init);
        assertThat(own.state()).isEqualTo(QpState.INIT);
        Registered clientMem = Registered.of(scope(), pd, 4096);
        postReceives(own, clientMem, 0, 1024, 1, 1);
        client.connect(new ConnParam(new byte[0], 1, 1, false, 7, 7, false, own.qpNum()));

        CmEvent request = pump().expect(s, CmEventType.CONNECT_REQUEST);
        assertThat(request.conn().qpNum()).as("the QPN given in the connect").isEqualTo(own.qpNum());
        CmId server = request.id();
        QpAttr rtr = server.initQpAttr(QpState.RTR);
        assertThat(rtr.has(QpAttr.DEST_QPN)).isTrue();
        assertThat(rtr.destQpNum()).isEqualTo(own.qpNum());
        ProtectionDomain spd = pd(server);
        CompletionQueue scq = cq(server, 16);
        QueuePair sqp = qp(server, spd, scq, SMALL, true);
        Registered serverMem = Registered.of(scope(), spd, 4096);
        server.accept(ConnParam.DEFAULT);

        CmEvent response = pump().expect(c, CmEventType.CONNECT_RESPONSE);
        assertThat(response.conn().qpNum()).isEqualTo(sqp.qpNum());
        own.modify(client.initQpAttr(QpState.RTR));
        own.modify(client.initQpAttr(QpState.RTS));
        assertThat(own.state()).isEqualTo(QpState.RTS);
        client.establish();
        pump().expect(s, CmEventType.ESTABLISHED);

        serverMem.put(0, "over a user QP");
        SendBatch b = sends(1, 1);
        b.wrId(0, 5).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED).single(0, serverMem.address(0), 14,
                serverMem.lkey());
        sqp.postSend(b, 1);
        assertThat(pump().completions(cq, 1).get(0).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(clientMem.get(0, 14)).isEqualTo("over a user QP");
    }

    @Test
    default void theTosOptionBecomesTheRouteTrafficClass() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        CmId id = scope().add(c.createId(PortSpace.TCP, null));
        assertThatThrownBy(() -> id.setOption(CmOption.TOS, 256)).isInstanceOf(IllegalArgumentException.class);
        id.setOption(CmOption.TOS, 32);
        id.resolveAddr(clientSource(), listener.localAddress(), timeoutMs());
        pump().expect(c, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(timeoutMs());
        pump().expect(c, CmEventType.ROUTE_RESOLVED);
        assertThat(id.route().trafficClass()).isEqualTo(32);
    }

    @Test
    default void aClosedIdRefusesEveryOperation() {
        EventChannel c = pump().channel();
        CmId id = c.createId(PortSpace.TCP, "x");
        assertThat(id.context()).isEqualTo("x");
        id.close();
        id.close();
        assertThatThrownBy(() -> id.resolveRoute(1000)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> id.connect(ConnParam.DEFAULT)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> id.bind(clientSource())).isInstanceOf(IllegalStateException.class);
    }
}
