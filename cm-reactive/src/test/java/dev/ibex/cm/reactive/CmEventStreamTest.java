package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * {@link RdmaCmChannel} on soft-roce: ids driven by hand, every event a copy with what it carries, and a subscriber
 * that requests nothing (or falls behind) never holds up the CM or teardown.
 */
@Timeout(60)
class CmEventStreamTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    final SoftHosts hosts = new SoftHosts();
    final RdmaCmChannel srv = RdmaCmChannel.open(hosts.server);
    final RdmaCmChannel cli = RdmaCmChannel.open(hosts.client);
    final List<AutoCloseable> verbs = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        srv.close();
        cli.close();
        for (AutoCloseable c : verbs.reversed()) {
            c.close();
        }
        hosts.close();
    }

    /** A subscriber that requests nothing until told to. */
    static final class Idle extends BaseSubscriber<RdmaCmEvent> {
        final List<RdmaCmEvent> got = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        volatile boolean completed;

        @Override
        protected void hookOnSubscribe(Subscription s) {
            // no demand
        }

        @Override
        protected void hookOnNext(RdmaCmEvent e) {
            got.add(e);
        }

        @Override
        protected void hookOnError(Throwable t) {
            error.set(t);
        }

        @Override
        protected void hookOnComplete() {
            completed = true;
        }
    }

    static List<CmEventType> types(List<RdmaCmEvent> events) {
        return events.stream().map(RdmaCmEvent::type).toList();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static String prefix(RdmaCmEvent e, int n) {
        return new String(Arrays.copyOf(e.privateData(), n), StandardCharsets.US_ASCII);
    }

    /** An RC QP for {@code id} on a PD and CQ of its device (closed after the test, after the ids). */
    void createQp(CmId id) {
        ProtectionDomain pd = id.device().allocPd();
        CompletionQueue cq = id.device().createCompletionQueue(16, null, 0);
        verbs.add(pd);
        verbs.add(cq);
        id.createQp(pd, new QpInitAttr(cq, cq, null, new QpCap(4, 4, 1, 1, 0), QpType.RC, true, null));
    }

    @Test
    void aConnectionsWholeLifeArrivesAsCopiedEvents() {
        CmId listener = srv.createId(PortSpace.TCP, null);
        List<RdmaCmEvent> server = new CopyOnWriteArrayList<>();
        srv.events().subscribe(e -> {
            server.add(e);
            if (e.type() == CmEventType.CONNECT_REQUEST) { // on the loop: the new id may be used at once
                createQp(e.id());
                e.id().accept(ConnParam.DEFAULT.withPrivateData(bytes("welcome")));
            } else if (e.type() == CmEventType.DISCONNECTED) {
                e.id().disconnect();
            }
        });
        int port = srv.onLoop(() -> {
            listener.bind(new InetSocketAddress(SoftHosts.SERVER_IP, 0));
            listener.listen(4);
            return listener.localAddress().getPort();
        });

        CmId id = cli.createId(PortSpace.TCP, null);
        List<RdmaCmEvent> client = new CopyOnWriteArrayList<>();
        cli.events(id).subscribe(client::add);
        cli.onLoop(() -> {
            id.resolveAddr(null, new InetSocketAddress(SoftHosts.SERVER_IP, port), 2000);
            return null;
        });
        await().atMost(WAIT).until(() -> types(client).contains(CmEventType.ADDR_RESOLVED));
        cli.onLoop(() -> {
            id.resolveRoute(2000);
            return null;
        });
        await().atMost(WAIT).until(() -> types(client).contains(CmEventType.ROUTE_RESOLVED));
        int clientQpn = cli.onLoop(() -> {
            createQp(id);
            id.connect(ConnParam.DEFAULT.withPrivateData(bytes("hello")).withRdmaDepth(3, 2));
            return id.qp().qpNum();
        });
        await().atMost(WAIT).until(() -> types(client).contains(CmEventType.ESTABLISHED));

        RdmaCmEvent request = server.get(0);
        assertThat(request.type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        assertThat(request.listenId()).isSameAs(listener);
        assertThat(request.concerns(listener)).isTrue();
        assertThat(prefix(request, 5)).isEqualTo("hello");
        assertThat(request.conn().qpNum()).isEqualTo(clientQpn);
        assertThat(request.conn().responderResources()).as("the peer's initiator depth").isEqualTo(2);
        assertThat(request.conn().initiatorDepth()).as("the peer's responder resources").isEqualTo(3);
        RdmaCmEvent established = client.get(2);
        assertThat(established.type()).isEqualTo(CmEventType.ESTABLISHED);
        assertThat(prefix(established, 7)).isEqualTo("welcome");
        assertThat(established.conn().qpNum()).isEqualTo(request.id().qp().qpNum());
        // a copy: changing what the accessor returned changes nothing
        established.privateData()[0] = 'X';
        assertThat(prefix(established, 7)).isEqualTo("welcome");
        await().atMost(WAIT).until(() -> types(server).equals(List.of(CmEventType.CONNECT_REQUEST,
                CmEventType.ESTABLISHED)));

        cli.onLoop(() -> {
            id.disconnect();
            return null;
        });
        // the server answers its DISCONNECTED with a disconnect; after time wait both QPs may be reused
        await().atMost(WAIT).until(() -> types(client).contains(CmEventType.TIMEWAIT_EXIT)
                && types(server).contains(CmEventType.TIMEWAIT_EXIT));
        assertThat(types(client)).containsExactly(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED,
                CmEventType.ESTABLISHED, CmEventType.DISCONNECTED, CmEventType.TIMEWAIT_EXIT);
        assertThat(types(server)).containsExactly(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED,
                CmEventType.DISCONNECTED, CmEventType.TIMEWAIT_EXIT);
        cli.onLoop(() -> {
            id.close();
            return null;
        });
    }

    @Test
    void aRejectCarriesItsStatusAndPrivateData() {
        CmId listener = srv.createId(PortSpace.TCP, null);
        srv.events(listener).subscribe(e -> e.id().reject(bytes("go away")));
        int port = srv.onLoop(() -> {
            listener.bind(new InetSocketAddress(SoftHosts.SERVER_IP, 0));
            listener.listen(4);
            return listener.localAddress().getPort();
        });
        CmId id = cli.createId(PortSpace.TCP, null);
        List<RdmaCmEvent> client = new CopyOnWriteArrayList<>();
        cli.events(id).subscribe(e -> {
            client.add(e);
            switch (e.type()) { // a state machine in the subscriber, on the loop
                case ADDR_RESOLVED -> id.resolveRoute(2000);
                case ROUTE_RESOLVED -> {
                    createQp(id);
                    id.connect(ConnParam.DEFAULT);
                }
                default -> { }
            }
        });
        cli.onLoop(() -> {
            id.resolveAddr(null, new InetSocketAddress(SoftHosts.SERVER_IP, port), 2000);
            return null;
        });
        await().atMost(WAIT).until(() -> types(client).contains(CmEventType.REJECTED));
        RdmaCmEvent rejected = client.get(2);
        assertThat(rejected.status()).as("consumer reject").isEqualTo(28);
        assertThat(prefix(rejected, 7)).isEqualTo("go away");
    }

    @Test
    void aSubscriberThatRequestsNothingHoldsUpNeitherTheCmNorTeardown() {
        Idle idle = new Idle();
        cli.events().subscribe(idle);
        List<RdmaCmEvent> eager = new CopyOnWriteArrayList<>();
        cli.events().subscribe(eager::add);
        CmId id = cli.createId(PortSpace.TCP, null);
        cli.onLoop(() -> {
            id.resolveAddr(null, new InetSocketAddress(SoftHosts.SERVER_IP, 7999), 2000); // nobody listens there
            return null;
        });
        await().atMost(WAIT).until(() -> types(eager).contains(CmEventType.ADDR_RESOLVED));
        cli.onLoop(() -> {
            id.resolveRoute(2000);
            return null;
        });
        await().atMost(WAIT).until(() -> types(eager).contains(CmEventType.ROUTE_RESOLVED));
        cli.onLoop(() -> {
            createQp(id);
            id.connect(ConnParam.DEFAULT);
            return null;
        });
        await().atMost(WAIT).until(() -> types(eager).contains(CmEventType.REJECTED));
        assertThat(eager.get(2).status()).as("nobody listens").isEqualTo(8);
        assertThat(idle.got).isEmpty();

        // its events were acked when they were read: destroying the id (and its QP) returns at once
        long t0 = System.nanoTime();
        cli.onLoop(() -> {
            id.close();
            return null;
        });
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        assertThat(hosts.clientFabric.resources().get(dev.ibex.cm.spi.ResourceKind.CM_ID)).isZero();

        idle.request(10); // what it missed is still there, in order
        await().atMost(WAIT).until(() -> idle.got.size() == 3);
        assertThat(types(idle.got)).containsExactly(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED,
                CmEventType.REJECTED);
        cli.close(); // the channel goes, the streams complete
        await().atMost(WAIT).until(() -> idle.completed);
    }

    @Test
    void aSubscriberThatFallsBehindEndsAloneWithATypedOverflow() {
        RdmaCmChannel small = RdmaCmChannel.open(hosts.client.next(), 2);
        try {
            Idle idle = new Idle();
            small.events().subscribe(idle);
            List<RdmaCmEvent> eager = new CopyOnWriteArrayList<>();
            small.events().subscribe(eager::add);
            CmId id = small.createId(PortSpace.TCP, null);
            small.events(id).subscribe(e -> {
                switch (e.type()) {
                    case ADDR_RESOLVED -> id.resolveRoute(2000);
                    case ROUTE_RESOLVED -> {
                        createQp(id);
                        id.connect(ConnParam.DEFAULT);
                    }
                    default -> { }
                }
            });
            small.onLoop(() -> {
                id.resolveAddr(null, new InetSocketAddress(SoftHosts.SERVER_IP, 7999), 2000);
                return null;
            });
            await().atMost(WAIT).until(() -> eager.size() == 3);
            assertThat(idle.error.get()).isInstanceOf(EventOverflowException.class)
                    .hasMessageContaining("did not keep up");
            assertThat(((EventOverflowException) idle.error.get()).capacity()).isEqualTo(2);
            assertThat(types(eager)).containsExactly(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED,
                    CmEventType.REJECTED);
            small.onLoop(() -> {
                id.close();
                return null;
            });
        } finally {
            small.close();
        }
        assertThatThrownBy(() -> small.createId(PortSpace.TCP, null)).isInstanceOf(IllegalStateException.class);
    }

    /**
     * Closing from {@code onNext} (on the loop, possibly between two events read in one pass) ends every stream of the
     * channel and destroys its ids; the loop stops reading the closed channel (rdma-core's {@code poll} would throw).
     */
    @Test
    void aSubscriberMayCloseTheChannelOnAnEvent() {
        RdmaCmChannel own = RdmaCmChannel.open(hosts.client.next(), 8);
        CmId a = own.createId(PortSpace.TCP, null);
        CmId b = own.createId(PortSpace.TCP, null);
        List<RdmaCmEvent> got = new CopyOnWriteArrayList<>();
        Idle idle = new Idle();
        own.events().subscribe(e -> {
            got.add(e);
            own.close(); // on the loop, between two events read in one pass
        });
        own.events().subscribe(idle);
        idle.request(1);
        own.onLoop(() -> { // two events queued before the loop reads either
            a.resolveAddr(null, new InetSocketAddress(SoftHosts.SERVER_IP, 7999), 2000);
            b.resolveAddr(null, new InetSocketAddress(SoftHosts.SERVER_IP, 7999), 2000);
            return null;
        });
        await().atMost(WAIT).until(() -> idle.completed);
        assertThat(got).hasSize(1);
        assertThat(hosts.clientFabric.resources().get(dev.ibex.cm.spi.ResourceKind.CM_ID)).isZero();
        assertThat(hosts.uncaught).isEmpty();
    }
}
