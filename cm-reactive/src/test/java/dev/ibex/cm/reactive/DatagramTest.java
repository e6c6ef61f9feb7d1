package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.CLIENT_IP;
import static dev.ibex.cm.reactive.SoftHosts.NOBODY_IP;
import static dev.ibex.cm.reactive.SoftHosts.SERVER_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.spi.ResourceKind;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/** {@link RdmaDatagram} and {@link DatagramEndpoint} on soft-roce: SIDR, send/receive/reply, drops, failures. */
class DatagramTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    RdmaDatagram server() {
        return RdmaDatagram.create().runOn(hosts.server).host(SERVER_IP);
    }

    RdmaDatagram client() {
        return RdmaDatagram.create().runOn(hosts.client).host(CLIENT_IP);
    }

    static InetSocketAddress at(DatagramEndpoint d) {
        return new InetSocketAddress(SERVER_IP, d.localAddress().getPort());
    }

    /** Echoes each datagram to its sender. */
    static Disposable echo(DatagramEndpoint d) {
        return d.receive().concatMap(m -> {
            m.retain();
            return d.replyTo(m)
                    .flatMap(to -> d.send(to, Mono.just(m.message())).doFinally(s -> to.close()))
                    .doFinally(s -> m.release());
        }).subscribe();
    }

    @Test
    void resolvesWithSidrSendsAndGetsReplies() throws Exception {
        DatagramEndpoint service = server().accept(req -> Mono.just(AcceptDecision.accept(
                ("hi " + new String(req.privateData(), StandardCharsets.UTF_8).trim()).getBytes()))).bindNow();
        echo(service);
        DatagramEndpoint me = client().bindNow();
        assertThat(me.localAddress().getAddress()).isEqualTo(InetAddress.getByName(CLIENT_IP));
        assertThat(me.maxPayload()).isPositive();

        UdPeer peer = me.resolve(at(service), "me".getBytes()).block(WAIT);
        assertThat(peer.qpNum()).isEqualTo(service.qpNum());
        assertThat(new String(peer.privateData(), StandardCharsets.UTF_8).trim()).isEqualTo("hi me");

        StepVerifier.create(me.receive().map(d -> {
                    assertThat(d.sourceQp()).isEqualTo(service.qpNum());
                    assertThat(d.sourceAddress().getHostAddress()).isEqualTo(SERVER_IP);
                    return d.asString();
                }).take(3))
                .then(() -> me.send(peer, Flux.just("a", "bb".getBytes(), new WithImmediate("ccc", 7))).subscribe())
                .expectNext("a", "bb", "ccc")
                .expectComplete()
                .verify(WAIT);
        assertThat(me.drops()).isZero();
        assertThat(service.drops()).isZero();

        me.dispose();
        StepVerifier.create(me.onDispose()).expectComplete().verify(WAIT);
        assertThat(me.isDisposed()).isTrue();
        service.dispose();
        service.onDispose().block(WAIT);
        hosts.awaitQuiet();
        assertThat(hosts.serverFabric.resources().get(ResourceKind.ADDRESS_HANDLE)
                + hosts.clientFabric.resources().get(ResourceKind.ADDRESS_HANDLE)).isZero();
    }

    @Test
    void resolveFailsTypedForNoServiceARejectAndBadArguments() {
        DatagramEndpoint me = client().bindNow();
        StepVerifier.create(me.resolve(new InetSocketAddress(SERVER_IP, 4999), null))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaConnectException.class,
                        x -> assertThat(x.isNoListener()).isTrue()))
                .verify(WAIT);
        DatagramEndpoint busy = server().accept(req -> Mono.just(AcceptDecision.reject("busy".getBytes())))
                .bindNow();
        StepVerifier.create(me.resolve(at(busy), null))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaConnectException.class, x -> {
                    assertThat(x.isConsumerReject()).isTrue();
                    // UD private data arrives padded to its maximum, as with librdmacm
                    assertThat(new String(x.privateData(), StandardCharsets.UTF_8).trim()).isEqualTo("busy");
                }))
                .verify(WAIT);
        DatagramEndpoint silent = server().accept(req -> Mono.empty()).bindNow(); // empty: rejects
        StepVerifier.create(me.resolve(at(silent), null))
                .expectError(RdmaConnectException.class).verify(WAIT);
        DatagramEndpoint closedDoor = server().bindNow(); // no policy: does not listen
        StepVerifier.create(me.resolve(at(closedDoor), null))
                .expectError(RdmaConnectException.class).verify(WAIT);
        StepVerifier.create(me.resolve(at(busy), new byte[181]))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("180"))
                .verify(WAIT);
        me.dispose();
        me.onDispose().block(WAIT);
        StepVerifier.create(me.resolve(at(busy), null)).expectError(IllegalStateException.class).verify(WAIT);
        busy.dispose();
        silent.dispose();
        closedDoor.dispose();
        hosts.awaitQuiet();
    }

    @Test
    void bindFailsForBadAddressesAndArguments() {
        StepVerifier.create(RdmaDatagram.create().runOn(hosts.client).host("0.0.0.0").bind())
                .expectError(IllegalArgumentException.class).verify(WAIT);
        StepVerifier.create(RdmaDatagram.create().runOn(hosts.client).host(NOBODY_IP).bind())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(dev.ibex.cm.RdmaException.class))
                .verify(WAIT);
        StepVerifier.create(RdmaDatagram.create().runOn(hosts.client).bind())
                .expectError(IllegalStateException.class).verify(WAIT);
        StepVerifier.create(client().receiveWindow(8).receiveQueue(8).bind())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("below the receive window"))
                .verify(WAIT);
        assertThatThrownBy(() -> client().port(70000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client().receiveQueue(-1)).isInstanceOf(IllegalArgumentException.class);
        hosts.awaitQuiet();
    }

    @Test
    void sendFailsForOversizedDatagramsAndAfterDispose() {
        DatagramEndpoint service = server().accept(req -> Mono.just(AcceptDecision.accept())).bindNow();
        DatagramEndpoint me = client().bindNow();
        UdPeer peer = me.resolve(at(service), null).block(WAIT);
        StepVerifier.create(me.send(peer, Mono.just(new byte[me.maxPayload() + 1])))
                .expectError(IllegalArgumentException.class) // beyond the path MTU (or the buffer)
                .verify(WAIT);
        StepVerifier.create(me.send(peer, Mono.just(new byte[me.maxPayload() / 2 + 1]))
                        .then(Mono.empty()))
                .expectComplete()
                .verify(WAIT);
        StepVerifier.create(me.send(peer, Mono.just(42))).expectError(IllegalArgumentException.class).verify(WAIT);
        StepVerifier.create(me.send(peer, Flux.error(new IllegalStateException("upstream"))))
                .expectErrorMessage("upstream").verify(WAIT);
        me.dispose();
        StepVerifier.create(me.send(peer, Mono.just("late"))).expectError(IllegalStateException.class).verify(WAIT);
        StepVerifier.create(me.receive()).expectComplete().verify(WAIT);
        service.dispose();
        hosts.awaitQuiet();
    }

    @Test
    void aSlowSubscriberDropsAreCountedAndReceivesStayPosted() {
        DatagramEndpoint service = server().receiveQueue(2)
                .accept(req -> Mono.just(AcceptDecision.accept())).bindNow();
        DatagramEndpoint me = client().bindNow();
        UdPeer peer = me.resolve(at(service), null).block(WAIT);
        int n = 40; // below the receive window of 64: every datagram reaches the endpoint
        // demand only from this thread: a StepVerifier script runs its thenRequest on the signal thread as soon as
        // the expectation before it is met, even while an earlier then() task still runs, so it cannot keep
        // demand at zero while datagrams arrive
        List<String> seen = new CopyOnWriteArrayList<>();
        BaseSubscriber<String> slow = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(1);
            }

            @Override
            protected void hookOnNext(String value) {
                seen.add(value);
            }
        };
        service.receive().map(DatagramMessage::asString).subscribe(slow);
        // one at a time: a burst can overflow the soft NIC's per-QP inbox under load, and a datagram the NIC
        // drops never reaches the endpoint to be counted (UD promises nothing there)
        for (int i = 0; i < n; i++) {
            int k = i;
            me.send(peer, Mono.just(String.valueOf(i))).block(WAIT);
            if (k == 0) {
                await().atMost(WAIT).until(() -> seen.size() == 1);
            } else if (k >= 3) { // 1 delivered, 2 queued, the rest dropped and counted
                await().atMost(WAIT).untilAsserted(() -> assertThat(service.drops())
                        .as("drops after datagram %d", k).isEqualTo(k - 2L));
            }
        }
        assertThat(seen).containsExactly("0");

        slow.request(2);
        await().atMost(WAIT).untilAsserted(() -> assertThat(seen).containsExactly("0", "1", "2"));
        me.send(peer, Mono.just("late")).block(WAIT); // no demand, but room in the queue: it waits there
        slow.request(1);
        // receives were re-posted: the endpoint still hears
        await().atMost(WAIT).untilAsserted(() -> assertThat(seen).containsExactly("0", "1", "2", "late"));
        slow.cancel();
        assertThat(service.drops()).isEqualTo(n - 3);
        me.dispose();
        service.dispose();
        hosts.awaitQuiet();
    }

    @Test
    void cancellationInEveryStateLeavesNothingBehind() {
        // binding
        for (int i = 0; i < 3; i++) {
            // a loaded machine may finish the bind before the cancel: whoever gets the endpoint disposes it
            client().bind().subscribe(DatagramEndpoint::dispose).dispose();
        }
        hosts.awaitQuiet();
        // resolving, with the service's decision pending: the late answer's address handle is released
        Sinks.One<AcceptDecision> decision = Sinks.one();
        AtomicInteger requests = new AtomicInteger();
        DatagramEndpoint service = server().accept(req -> {
            requests.incrementAndGet();
            return decision.asMono();
        }).bindNow();
        DatagramEndpoint me = client().bindNow();
        Disposable resolving = me.resolve(at(service), null).subscribe();
        await().atMost(WAIT).until(() -> requests.get() == 1);
        resolving.dispose();
        decision.tryEmitValue(AcceptDecision.accept()); // too late: the answer's address handle goes at once
        await().atMost(WAIT).until(() -> hosts.serverFabric.resources().get(ResourceKind.CM_ID) == 1);
        await().atMost(WAIT).until(() -> hosts.clientFabric.resources().get(ResourceKind.ADDRESS_HANDLE) == 0);
        // receiving without demand, datagrams queued: cancelling releases them (counted as drops)
        UdPeer peer = me.resolve(at(service), null).block(WAIT);
        AtomicInteger got = new AtomicInteger();
        Disposable receiving = service.receive().subscribe(m -> got.incrementAndGet(), e -> { }, () -> { },
                s -> { /* no demand */ });
        me.send(peer, Flux.range(0, 10).map(String::valueOf)).block(WAIT);
        await().atMost(WAIT).untilAsserted(() -> assertThat(hosts.server.bufferLeaks()).hasSize(10));
        assertThat(service.drops()).isZero(); // 10 fit the queue of 16
        receiving.dispose();
        await().atMost(WAIT).until(() -> service.drops() == 10);
        assertThat(got).hasValue(0);
        // sending an endless stream
        // (onBackpressureDrop: Flux.interval fails with OverflowException when a loaded loop requests too slowly)
        Disposable sending = me.send(peer, Flux.interval(Duration.ofMillis(1)).onBackpressureDrop()
                .map(Object::toString)).subscribe();
        await().atMost(WAIT).until(() -> service.drops() > 10);
        sending.dispose();
        me.dispose();
        service.dispose();
        hosts.awaitQuiet();
        assertThat(hosts.serverFabric.resources().get(ResourceKind.ADDRESS_HANDLE)
                + hosts.clientFabric.resources().get(ResourceKind.ADDRESS_HANDLE)).isZero();
    }
}
