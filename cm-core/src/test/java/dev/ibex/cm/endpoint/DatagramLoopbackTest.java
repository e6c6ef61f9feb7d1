package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.LoopBlockHound;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.VerbsAbi;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DatagramLoopbackTest {
    static final InetSocketAddress SERVICE = new InetSocketAddress("10.0.0.1", 9000);
    static final InetSocketAddress GROUP = new InetSocketAddress("239.1.1.1", 0);

    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private FakeFabric fabric;
    private EventLoopGroup group;

    /** Records datagram callbacks. */
    static class Rec implements DatagramHandler {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<String> messages = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Datagram> bound = new CompletableFuture<>();
        final CompletableFuture<UdPeer> resolved = new CompletableFuture<>();
        final CompletableFuture<Throwable> resolveFailed = new CompletableFuture<>();
        final CompletableFuture<Membership> joined = new CompletableFuture<>();
        final CompletableFuture<Throwable> membershipError = new CompletableFuture<>();
        final CompletableFuture<Datagram> closed = new CompletableFuture<>();
        final List<Buffer> received = Collections.synchronizedList(new ArrayList<>());
        volatile boolean acceptRequests = true;
        volatile boolean hold;

        @Override public void onBound(Datagram d) { events.add("bound"); bound.complete(d); }
        @Override public void onMessage(Datagram d, Buffer m) {
            events.add("message");
            byte[] b = m.segment().asSlice(m.offset(), m.length()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            messages.add(new String(b, StandardCharsets.UTF_8));
            if (hold) {
                received.add(m);
            } else {
                m.release();
            }
        }
        @Override public void onComplete(Datagram d, long a) { events.add("complete " + a); }
        @Override public void onFailed(Datagram d, long a, RdmaException e) { events.add("failed " + a); }
        @Override public void onResolved(Datagram d, UdPeer p) { events.add("resolved"); resolved.complete(p); }
        @Override public void onResolveFailed(Datagram d, InetSocketAddress r, Throwable e) {
            events.add("resolveFailed");
            resolveFailed.complete(e);
        }
        @Override public void onRequest(Datagram d, DatagramRequest r) {
            events.add("request " + new String(r.privateData(), StandardCharsets.UTF_8).trim());
            if (acceptRequests) {
                r.accept("svc".getBytes(StandardCharsets.UTF_8));
            } else {
                r.reject("busy".getBytes(StandardCharsets.UTF_8));
            }
        }
        @Override public void onJoined(Datagram d, Membership m) { events.add("joined"); joined.complete(m); }
        @Override public void onMembershipError(Datagram d, Membership m, Throwable e) {
            events.add("membershipError");
            membershipError.complete(e);
        }
        @Override public void onLeft(Datagram d, Membership m) { events.add("left"); }
        @Override public void onError(Datagram d, Throwable e) { events.add("error " + e); }
        @Override public void onClosed(Datagram d) { events.add("closed"); closed.complete(d); }
    }

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install();
    }

    @BeforeEach
    void start() {
        fabric = FakeFabric.loopback();
        group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(2).withCloseTimeout(Duration.ofSeconds(2))
                .withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(2048).withLeakTracking(true))
                .withUncaughtHandler(uncaught::add));
    }

    @AfterEach
    void tearDown() {
        group.close();
        assertThat(fabric.resources().total()).as(fabric.resources().toString()).isZero();
        assertThat(fabric.violations()).isEmpty();
        assertThat(uncaught).isEmpty();
        fabric.close();
    }

    static <T> T on(EventLoop loop, Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    Datagram bind(InetSocketAddress at, DatagramOptions options, Rec rec) throws Exception {
        Datagram d = Datagram.bind(group.next(), at, options, rec);
        rec.bound.get(5, TimeUnit.SECONDS);
        return d;
    }

    static void send(Datagram d, UdPeer to, String text, long attachment) throws Exception {
        on(d.loop(), () -> {
            Buffer b = d.allocate();
            d.send(to, b, 0, Recorder.put(b, text), attachment);
            return null;
        });
    }

    @Test
    void resolvesAServiceWithSidrSendsAndRepliesWithTheGrhOffset() throws Exception {
        Rec server = new Rec();
        Datagram s = bind(SERVICE, DatagramOptions.DEFAULT.withListen(true), server);
        Rec client = new Rec();
        Datagram c = bind(new InetSocketAddress("10.0.1.1", 0), DatagramOptions.DEFAULT, client);
        c.resolve(SERVICE, "who".getBytes(StandardCharsets.UTF_8));
        UdPeer service = client.resolved.get(5, TimeUnit.SECONDS);
        assertThat(service.qpNum()).isEqualTo(s.qpNum());
        assertThat(new String(service.privateData(), StandardCharsets.UTF_8)).isEqualTo("svc");
        assertThat(server.events).contains("request who");

        CompletableFuture<Buffer> got = new CompletableFuture<>();
        server.hold = true;
        send(c, service, "hello", 1);
        await().until(() -> server.received.size() == 1);
        Buffer m = server.received.get(0);
        assertThat(m.offset()).isEqualTo(VerbsAbi.GRH_SIZE);
        assertThat(m.length()).isEqualTo(5);
        assertThat(m.sourceQp()).isEqualTo(c.qpNum());
        assertThat(m.sourceGid()).isEqualTo(Gid.of(InetAddress.getByName("10.0.1.1")));
        on(s.loop(), () -> {
            UdPeer back = s.peerOf(m);
            m.release();
            Buffer b = s.allocate();
            s.send(back, b, 0, Recorder.put(b, "hi back"), 2);
            return null;
        });
        await().until(() -> client.messages.contains("hi back") && client.events.contains("complete 1")
                && server.events.contains("complete 2"));
        assertThatThrownBy(() -> on(c.loop(), () -> {
            Buffer b = c.allocate();
            try {
                c.send(service, b, 0, c.maxPayload() + 1, 3);
            } finally {
                b.release();
            }
            return null;
        })).hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("MTU");
        assertThat(group.bufferLeaks()).isEmpty();
    }

    @Test
    void anEndpointNeverStaysDeafBecauseThePoolWasExhaustedWhenItBound() throws Exception {
        // a loop whose pool holds 32 buffers: once they are all posted, the next endpoint could post none
        EventLoopGroup small = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(1)
                .withCloseTimeout(Duration.ofSeconds(2)).withThreadName("small")
                .withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(2048).withSlabs(16, 32))
                .withUncaughtHandler(uncaught::add));
        try {
            EventLoop loop = small.next();
            DatagramOptions window24 = DatagramOptions.DEFAULT.withReceiveWindow(24);
            Rec r1 = new Rec();
            Datagram d1 = Datagram.bind(loop, new InetSocketAddress("10.0.1.1", 0), window24, r1);
            r1.bound.get(5, TimeUnit.SECONDS);
            Rec r2 = new Rec();
            Datagram d2 = Datagram.bind(loop, new InetSocketAddress("10.0.1.1", 0), window24, r2);
            r2.bound.get(5, TimeUnit.SECONDS);
            assertThat(on(loop, d1::postedReceives)).isEqualTo(24);
            // what the pool had left but its send reserve (2 of 32: BufferPool.receiveReserve)
            assertThat(on(loop, d2::postedReceives)).as("what the pool had left").isEqualTo(6);

            // a queue with nothing posted may take from the reserve (never deaf while a buffer is free): one each
            Rec r3 = new Rec();
            Datagram d3 = Datagram.bind(loop, new InetSocketAddress("10.0.1.1", 0), window24, r3);
            r3.bound.get(5, TimeUnit.SECONDS);
            Rec r4 = new Rec();
            Datagram d4 = Datagram.bind(loop, new InetSocketAddress("10.0.1.1", 0), window24, r4);
            r4.bound.get(5, TimeUnit.SECONDS);
            assertThat(on(loop, d3::postedReceives)).isEqualTo(1);
            assertThat(on(loop, d4::postedReceives)).isEqualTo(1);

            // none left: the bind fails, typed, instead of handing out an endpoint that hears nothing
            Rec r5 = new Rec();
            Datagram.bind(loop, new InetSocketAddress("10.0.1.1", 0), window24, r5);
            r5.closed.get(5, TimeUnit.SECONDS);
            assertThat(r5.events).anySatisfy(e -> assertThat(e).startsWith("error ").contains("ENOBUFS")
                    .contains("maxBuffers"));
            assertThat(r5.bound).isNotDone();
            d3.close();
            r3.closed.get(5, TimeUnit.SECONDS);
            d4.close();
            r4.closed.get(5, TimeUnit.SECONDS);

            // buffers come back: the short window fills up without any message being released
            d1.close();
            r1.closed.get(5, TimeUnit.SECONDS);
            await().until(() -> on(loop, d2::postedReceives) == 24);
            d2.close();
            r2.closed.get(5, TimeUnit.SECONDS);
        } finally {
            small.close();
        }
    }

    @Test
    void aMissingOrRejectingServiceFailsTyped() throws Exception {
        Rec client = new Rec();
        Datagram c = bind(new InetSocketAddress("10.0.1.1", 0), DatagramOptions.DEFAULT, client);
        c.resolve(SERVICE, null);
        RdmaConnectException none = (RdmaConnectException) client.resolveFailed.get(5, TimeUnit.SECONDS);
        assertThat(none.reason()).isEqualTo(RdmaConnectException.Reason.UNREACHABLE);
        assertThat(none.isNoListener()).isTrue();

        Rec server = new Rec();
        server.acceptRequests = false;
        bind(SERVICE, DatagramOptions.DEFAULT.withListen(true), server);
        Rec client2 = new Rec();
        Datagram c2 = bind(new InetSocketAddress("10.0.1.1", 0), DatagramOptions.DEFAULT, client2);
        c2.resolve(SERVICE, null);
        RdmaConnectException rejected = (RdmaConnectException) client2.resolveFailed.get(5, TimeUnit.SECONDS);
        assertThat(rejected.isConsumerReject()).isTrue();
        assertThat(new String(rejected.privateData(), StandardCharsets.UTF_8)).isEqualTo("busy");
        assertThatThrownBy(() -> c2.resolve(SERVICE, new byte[181])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("180");
        assertThatThrownBy(() -> Datagram.bind(group, new InetSocketAddress(0), new Rec()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not");
    }

    @Test
    void multicastPublishAndSubscribeWithASendOnlyPublisher() throws Exception {
        Rec sub = new Rec();
        Datagram subscriber = bind(new InetSocketAddress("10.0.0.1", 0), DatagramOptions.DEFAULT, sub);
        Rec pub = new Rec();
        Datagram publisher = bind(new InetSocketAddress("10.0.1.1", 0), DatagramOptions.DEFAULT, pub);
        subscriber.join(GROUP, false);
        Membership out = publisher.join(GROUP, true);
        sub.joined.get(5, TimeUnit.SECONDS);
        pub.joined.get(5, TimeUnit.SECONDS);
        assertThat(out.state()).isEqualTo(MembershipState.JOINED);
        assertThat(out.peer().qpNum()).isEqualTo(0xFFFFFF);
        on(publisher.loop(), () -> {
            Buffer b = publisher.allocate();
            out.send(b, 0, Recorder.put(b, "tick"), 7);
            return null;
        });
        await().until(() -> sub.messages.contains("tick") && pub.events.contains("complete 7"));
        assertThat(pub.messages).as("a send-only member receives nothing").isEmpty();

        out.leave();
        await().until(() -> pub.events.contains("left"));
        assertThat(out.state()).isEqualTo(MembershipState.LEFT);
        assertThatThrownBy(() -> on(publisher.loop(), () -> {
            Buffer b = publisher.allocate();
            try {
                out.send(b, 0, 1, 8);
            } finally {
                b.release();
            }
            return null;
        })).hasCauseInstanceOf(IllegalStateException.class);

        // closing a datagram leaves its groups before its id is destroyed
        FakeCmId subId = (FakeCmId) subscriber.cmId();
        subscriber.close();
        sub.closed.get(5, TimeUnit.SECONDS);
        List<String> calls = subId.calls();
        assertThat(calls.indexOf("leave 239.1.1.1")).isPositive().isLessThan(calls.indexOf("close"));
        assertThat(sub.events).containsSubsequence("joined", "left", "closed");
        assertThat(fabric.count(ResourceKind.ADDRESS_HANDLE)).as("the publisher's group AH is gone").isZero();
        on(publisher.loop(), () -> {
            publisher.allocate().release();
            return null;
        });
    }

    @Test
    void aFailingJoinIsATypedMulticastError() throws Exception {
        fabric.failJoins("239.2.2.2");
        Rec rec = new Rec();
        Datagram d = bind(new InetSocketAddress("10.0.0.1", 0), DatagramOptions.DEFAULT, rec);
        Membership m = d.join(new InetSocketAddress("239.2.2.2", 0), false);
        RdmaConnectException e = (RdmaConnectException) rec.membershipError.get(5, TimeUnit.SECONDS);
        assertThat(e.reason()).isEqualTo(RdmaConnectException.Reason.MULTICAST_ERROR);
        assertThat(m.state()).isEqualTo(MembershipState.LEFT);
        assertThatThrownBy(() -> d.join(new InetSocketAddress("10.0.0.2", 0), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a multicast address");
    }

    @Test
    void closingWithSendsAndReceivesInFlightReleasesEverything() throws Exception {
        Rec server = new Rec();
        server.hold = true;
        Datagram s = bind(SERVICE, DatagramOptions.DEFAULT.withListen(true).withReceiveWindow(2), server);
        Rec client = new Rec();
        Datagram c = bind(new InetSocketAddress("10.0.1.1", 0), DatagramOptions.DEFAULT, client);
        c.resolve(SERVICE, null);
        UdPeer service = client.resolved.get(5, TimeUnit.SECONDS);
        for (int i = 0; i < 4; i++) {
            send(c, service, "d" + i, i);
        }
        await().until(() -> server.received.size() == 2 && client.events.contains("complete 3"));
        s.close();
        c.close();
        server.closed.get(5, TimeUnit.SECONDS);
        client.closed.get(5, TimeUnit.SECONDS);
        server.received.forEach(Buffer::release);
        assertThat(fabric.count(ResourceKind.QUEUE_PAIR)).isZero();
        assertThat(fabric.count(ResourceKind.ADDRESS_HANDLE)).isZero();
        assertThat(fabric.count(ResourceKind.CM_ID)).isZero();
    }
}
