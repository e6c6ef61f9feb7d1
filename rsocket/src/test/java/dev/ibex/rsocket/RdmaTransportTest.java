package dev.ibex.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.test.LeaksTrackingByteBufAllocator;
import io.rsocket.util.DefaultPayload;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The transport's own behaviour beyond the TCK: frames split across messages between pools of different sizes,
 * receive demand as the receive credit, the handshake, and the lifecycle RSocket users expect (typed connect errors,
 * REJECTED_SETUP passed through, dispose and onClose on both sides). Both soft hosts track their registered buffers,
 * and every test ends with nothing left: no CM id, QP, registered buffer or allocator buffer.
 */
class RdmaTransportTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    final LeaksTrackingByteBufAllocator serverAlloc = LeaksTrackingByteBufAllocator.instrument(
            ByteBufAllocator.DEFAULT, Duration.ofSeconds(5), "server");
    final LeaksTrackingByteBufAllocator clientAlloc = LeaksTrackingByteBufAllocator.instrument(
            ByteBufAllocator.DEFAULT, Duration.ofSeconds(5), "client");
    SoftRoceHosts hosts = new SoftRoceHosts(true);
    CloseableRdmaServer server;
    RSocket client;

    @AfterEach
    void closeAll() {
        try {
            if (client != null) {
                client.dispose();
                client.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
            }
            if (server != null) {
                server.dispose();
                server.onClose().block(WAIT);
            }
            hosts.awaitQuiet(WAIT);
            serverAlloc.assertHasNoLeaks();
            clientAlloc.assertHasNoLeaks();
        } finally {
            hosts.close();
        }
    }

    static String text(int length) {
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append((char) ('a' + (i * 7 + i / 26) % 26));
        }
        return b.toString();
    }

    /** An echo server (request-response, request-stream of n copies) on the server host. */
    void echoServer() {
        server = RSocketServer.create(SocketAcceptor.with(new RSocket() {
                    @Override
                    public Mono<Payload> requestResponse(Payload p) {
                        return Mono.just(DefaultPayload.create(p.getDataUtf8(), p.getMetadataUtf8()))
                                .doFinally(s -> p.release());
                    }

                    @Override
                    public Flux<Payload> requestStream(Payload p) {
                        int n = Integer.parseInt(p.getMetadataUtf8());
                        String data = p.getDataUtf8();
                        p.release();
                        return Flux.range(0, n).map(i -> DefaultPayload.create(i + ":" + data));
                    }
                }))
                .bind(hosts.serverTransport().allocator(serverAlloc))
                .block(WAIT);
    }

    RSocket connect() {
        return RSocketConnector.create().connect(hosts.clientTransport(server).allocator(clientAlloc)).block(WAIT);
    }

    @Test
    void payloadsOfEverySizeUpToAMegabyteMakeTheRoundTripIntact() {
        echoServer();
        client = connect();
        // 8 KiB buffers: the first message holds 8,189 frame bytes; frame = 6 B header + 3 B metadata length + ...
        for (int size : new int[] {0, 1, 100, 8_000, 8_180, 8_181, 8_182, 8_190, 16_384, 100_000, 1 << 20}) {
            String data = text(size);
            Payload echo = client.requestResponse(DefaultPayload.create(data, "m" + size)).block(WAIT);
            assertThat(echo.getDataUtf8()).as("data of %d bytes", size).isEqualTo(data);
            assertThat(echo.getMetadataUtf8()).isEqualTo("m" + size);
            echo.release();
        }
    }

    @Test
    void sidesWithDifferentReceiveBuffersSplitAtTheSmaller() {
        hosts.close();
        hosts = new SoftRoceHosts(true, 4096, 16384);
        echoServer();
        client = connect();
        String big = text(50_000);
        List<String> got = client.requestStream(DefaultPayload.create(big, "20"))
                .map(p -> {
                    String s = p.getDataUtf8();
                    p.release();
                    return s;
                })
                .collectList().block(WAIT);
        assertThat(got).hasSize(20);
        for (int i = 0; i < 20; i++) {
            assertThat(got.get(i)).isEqualTo(i + ":" + big);
        }
    }

    @Test
    void aConnectToAnAddressWithoutAListenerFailsWithTheTypedCmReject() {
        echoServer();
        InetSocketAddress nobody = new InetSocketAddress(SoftRoceHosts.SERVER_IP, server.address().getPort() + 1);
        assertThatThrownBy(() -> RSocketConnector.create().connect(hosts.clientTransport(nobody)).block(WAIT))
                .isInstanceOfSatisfying(RdmaConnectException.class, e -> {
                    assertThat(e.reason()).isEqualTo(RdmaConnectException.Reason.REJECTED);
                    assertThat(e.isNoListener()).isTrue();
                });
    }

    @Test
    void aConnectThatTakesTooLongFailsWithTimeout() {
        server = null;
        InetSocketAddress silent = new InetSocketAddress(SoftRoceHosts.NOBODY_IP, 7878);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> RSocketConnector.create()
                        .connect(hosts.clientTransport(silent).connectTimeout(Duration.ofMillis(300))).block(WAIT))
                .isInstanceOfSatisfying(RdmaConnectException.class,
                        e -> assertThat(e.reason()).isIn(RdmaConnectException.Reason.TIMEOUT,
                                RdmaConnectException.Reason.UNREACHABLE, RdmaConnectException.Reason.ADDR_ERROR));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aPlainRdmaClientIsRejectedWithTheReasonInThePrivateData() {
        echoServer();
        assertThatThrownBy(() -> RdmaClient.create().runOn(hosts.client).remoteAddress(server.address())
                        .privateData("hello".getBytes(StandardCharsets.US_ASCII)).connectNow(WAIT))
                .isInstanceOfSatisfying(RdmaConnectException.class, e -> {
                    assertThat(e.isConsumerReject()).isTrue();
                    assertThat(new String(e.privateData(), StandardCharsets.US_ASCII))
                            .contains("not an RSocket-over-Ibex peer");
                });
    }

    @Test
    void aPeerThatNeverSendsItsHelloIsDisconnectedAfterTheHandshakeTimeout() {
        server = RSocketServer.create(SocketAcceptor.with(new RSocket() { }))
                .bind(hosts.serverTransport().handshakeTimeout(Duration.ofMillis(500))).block(WAIT);
        RdmaConnection raw = RdmaClient.create().runOn(hosts.client).remoteAddress(server.address())
                .privateData(Handshake.privateData()).connectNow(WAIT);
        raw.receive().subscribe();
        StepVerifier.create(raw.onDispose()).expectComplete().verify(Duration.ofSeconds(10));
    }

    @Test
    void aMalformedStreamClosesTheConnectionWithAFramingException() {
        AtomicReference<Throwable> serverSide = new AtomicReference<>();
        server = RdmaServerTransport.create(dev.ibex.cm.reactive.RdmaServer.create().runOn(hosts.server)
                        .host(SoftRoceHosts.SERVER_IP).port(0))
                .start(dc -> dc.receive().doOnError(serverSide::set).onErrorResume(e -> Mono.empty()).then()
                        .then(dc.onClose().onErrorResume(e -> Mono.empty())))
                .block(WAIT);
        RdmaConnection raw = RdmaClient.create().runOn(hosts.client).remoteAddress(server.address())
                .privateData(Handshake.privateData()).connectNow(WAIT);
        raw.receive().subscribe();
        // a valid hello, then a message announcing a 2-byte frame and carrying 4 bytes
        raw.send(Flux.just(Handshake.hello(8192), new byte[] {0, 0, 2, 1, 2, 3, 4})).subscribe(null, e -> { });
        StepVerifier.create(raw.onDispose()).expectComplete().verify(WAIT);
        await().atMost(WAIT).untilAsserted(() -> assertThat(serverSide.get()).isInstanceOf(FramingException.class)
                .hasMessageContaining("announces a frame of 2"));
    }

    @Test
    void rejectedSetupFromTheServerAcceptorReachesTheClientUnchanged() {
        server = RSocketServer.create((setup, peer) -> Mono.error(new RejectedSetupException("no entry for you")))
                .bind(hosts.serverTransport().allocator(serverAlloc)).block(WAIT);
        client = RSocketConnector.create().connect(hosts.clientTransport(server).allocator(clientAlloc)).block(WAIT);
        StepVerifier.create(client.requestResponse(DefaultPayload.create("hi")))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RejectedSetupException.class)
                        .hasMessage("no entry for you"))
                .verify(WAIT);
        StepVerifier.create(client.onClose()).expectError(RejectedSetupException.class).verify(WAIT);
    }

    @Test
    void disposingTheClientClosesBothSidesAndTheServerSeesItsPeerGo() {
        List<RSocket> peers = new CopyOnWriteArrayList<>();
        server = RSocketServer.create((setup, peer) -> {
                    peers.add(peer);
                    return Mono.just(new RSocket() { });
                })
                .bind(hosts.serverTransport().allocator(serverAlloc)).block(WAIT);
        client = connect();
        await().atMost(WAIT).until(() -> peers.size() == 1);
        client.dispose();
        // RSocket ends a disposed requester's onClose with ConnectionErrorException("Disposed"), the peer's with
        // the connection's close: both end, neither hangs
        StepVerifier.create(client.onClose().onErrorResume(e -> Mono.empty())).expectComplete().verify(WAIT);
        StepVerifier.create(peers.getFirst().onClose().onErrorResume(e -> Mono.empty())).expectComplete()
                .verify(WAIT);
        await().atMost(WAIT).until(() -> server.server().activeConnections() == 0);
    }

    @Test
    void theServersCloseCompletesOnlyOnceEveryConnectionHasClosedAndReleasedWhatItHeld() {
        List<DuplexConnection> accepted = new CopyOnWriteArrayList<>();
        server = hosts.serverTransport().allocator(serverAlloc).start(dc -> {
            accepted.add(dc);
            return Mono.never();
        }).block(WAIT);
        DuplexConnection c = hosts.clientTransport(server).allocator(clientAlloc).connect().block(WAIT);
        await().atMost(WAIT).until(() -> accepted.size() == 1);
        server.dispose();
        server.onClose().block(WAIT);
        // RSocket checks its allocators for leaks right after onClose: by then each connection must have closed
        // (its queued frames released); the RDMA server's own close came a step earlier, on the loop
        assertThat(accepted).allMatch(dc -> dc.onClose().onErrorResume(e -> Mono.empty()).toFuture().isDone());
        c.dispose();
        c.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
    }

    @Test
    void disposingTheServerFailsWhatIsOutstandingOnTheClient() {
        server = RSocketServer.create(SocketAcceptor.with(new RSocket() {
                    @Override
                    public Flux<Payload> requestStream(Payload p) {
                        p.release();
                        return Flux.never(); // outstanding until the connection goes
                    }
                }))
                .bind(hosts.serverTransport().allocator(serverAlloc)).block(WAIT);
        client = connect();
        StepVerifier.create(client.requestStream(DefaultPayload.create("watch")))
                .then(() -> await().atMost(WAIT).until(() -> server.server().activeConnections() == 1))
                .then(server::dispose)
                .expectError(ClosedChannelException.class)
                .verify(WAIT);
        StepVerifier.create(client.onClose()).expectComplete().verify(WAIT);
    }

    @Test
    void aReceiverWithoutDemandStopsTheSenderWithinTheReceiveWindowAndCatchesUpLater() throws Exception {
        AtomicReference<DuplexConnection> accepted = new AtomicReference<>();
        server = RdmaServerTransport.create(dev.ibex.cm.reactive.RdmaServer.create().runOn(hosts.server)
                        .host(SoftRoceHosts.SERVER_IP).port(0))
                .allocator(serverAlloc)
                .start(dc -> {
                    accepted.set(dc);
                    return dc.onClose().onErrorResume(e -> Mono.empty());
                })
                .block(WAIT);
        DuplexConnection sender = hosts.clientTransport(server).allocator(clientAlloc).connect().block(WAIT);
        await().atMost(WAIT).until(() -> accepted.get() != null);
        RdmaDuplexConnection receiver = (RdmaDuplexConnection) accepted.get();
        int window = receiver.rdmaConnection().connection().options().receiveWindow();

        // 600 frames, every 10th split across 3 messages; nobody reads
        int frames = 600;
        for (int i = 0; i < frames; i++) {
            sender.sendFrame(1, frame(clientAlloc, i, i % 10 == 0 ? 20_000 : 40));
        }
        List<Integer> got = new CopyOnWriteArrayList<>();
        reactor.core.publisher.BaseSubscriber<ByteBuf> reader = new reactor.core.publisher.BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                // no demand yet
            }

            @Override
            protected void hookOnNext(ByteBuf f) {
                got.add(f.getInt(f.readerIndex()));
                assertThat(f.readableBytes()).isEqualTo(got.getLast() % 10 == 0 ? 20_000 : 40);
            }
        };
        receiver.receive().subscribe(reader);
        // the receiver holds at most its window of messages and the sender stalls, nothing is lost: with shared
        // receives (the default) credits bound the sender, and up to a quarter of the window may be owed back
        // unreturned (the hello's credit among them); with a window of its own it is exactly the window
        await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).untilAsserted(() ->
                assertThat(held(receiver)).isBetween(window - window / 4, window));
        int stalled = held(receiver);
        Thread.sleep(200);
        assertThat(held(receiver)).as("the sender has stalled").isEqualTo(stalled);
        assertThat(got).isEmpty();
        // demand one frame at a time, then the rest: everything arrives, in order
        reader.request(1);
        await().atMost(WAIT).until(() -> got.size() == 1);
        reader.request(2);
        await().atMost(WAIT).until(() -> got.size() == 3);
        assertThat(held(receiver)).isLessThanOrEqualTo(window);
        reader.request(Long.MAX_VALUE);
        await().atMost(WAIT).until(() -> got.size() == frames);
        for (int i = 0; i < frames; i++) {
            assertThat(got.get(i)).isEqualTo(i);
        }
        sender.dispose();
        StepVerifier.create(receiver.onClose()).expectComplete().verify(WAIT);
    }

    /** Messages the receiving side holds (received, receive not re-posted), read on its loop. */
    static int held(RdmaDuplexConnection c) throws Exception {
        return c.rdmaConnection().loop().submit(() -> c.rdmaConnection().connection().heldMessages())
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    static ByteBuf frame(ByteBufAllocator alloc, int n, int length) {
        ByteBuf b = alloc.buffer(length);
        b.writeInt(n);
        b.writeZero(length - 4);
        return b;
    }
}
