package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.NOBODY_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.spi.ResourceKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * Cancelling in every state leaves nothing behind: no CM id, no QP, no held buffer (the cm-core leak detector),
 * and, when the groups close, no resource of any kind (checked by {@link SoftHosts#close()}).
 */
class CancellationTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void cancellingWhileResolvingOrRetryingReleasesTheAttempt() {
        RdmaClient toNobody = RdmaClient.create().runOn(hosts.client).host(NOBODY_IP).port(4999);
        for (int i = 0; i < 5; i++) {
            toNobody.connect().subscribe().dispose(); // at once: resolving
        }
        Disposable later = toNobody.connect().subscribe();
        // the QP exists from CONNECT on: the REQ is out and being retried
        await().atMost(WAIT).until(() -> hosts.clientFabric.resources().get(ResourceKind.QUEUE_PAIR) == 1);
        later.dispose();
        hosts.awaitQuiet();
    }

    @Test
    void cancellingWhileTheServerDecidesReleasesBothSides() {
        Sinks.One<AcceptDecision> decision = Sinks.one();
        AtomicInteger requests = new AtomicInteger();
        DisposableServer server = hosts.rdmaServer().accept(req -> {
            requests.incrementAndGet();
            return decision.asMono();
        }).bindNow();
        RecordingMetrics m = new RecordingMetrics();
        Disposable attempt = hosts.rdmaClient(server).metrics(m).connect().subscribe();
        await().atMost(WAIT).until(() -> requests.get() == 1); // the client is CONNECTING
        attempt.dispose();
        assertThat(m.connects).containsExactly("CANCELLED");
        await().atMost(WAIT).until(() -> hosts.clientFabric.resources().get(ResourceKind.CM_ID) == 0);
        decision.tryEmitValue(AcceptDecision.accept()); // too late: the client has gone
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void disposingAServerWithAPendingDecisionRejectsIt() {
        AtomicInteger requests = new AtomicInteger();
        DisposableServer server = hosts.rdmaServer().accept(req -> {
            requests.incrementAndGet();
            return Mono.never();
        }).bindNow();
        AtomicBoolean rejected = new AtomicBoolean();
        hosts.rdmaClient(server).connect().subscribe(null, e -> rejected.set(
                e instanceof dev.ibex.cm.RdmaConnectException x && x.isConsumerReject()));
        await().atMost(WAIT).until(() -> requests.get() == 1);
        server.disposeNow(WAIT);
        await().atMost(WAIT).untilTrue(rejected);
        hosts.awaitQuiet();
    }

    @Test
    void cancellingReceiveWithTrafficReleasesWhatWasQueuedAndWhatComesLater() {
        AtomicBoolean serverSendEnded = new AtomicBoolean();
        AtomicInteger serverEmitted = new AtomicInteger();
        DisposableServer server = hosts.rdmaServer()
                .handle(c -> c.send(Flux.range(0, 1_000_000).map(i -> "n" + i)
                                .doOnNext(x -> serverEmitted.incrementAndGet()))
                        .doFinally(s -> serverSendEnded.set(true)))
                .bindNow();
        RdmaConnection client = hosts.rdmaClient(server).connectNow();
        StepVerifier.create(client.receive().map(Message::asString).take(40))
                .expectNextCount(40).expectComplete().verify(WAIT);
        // receive was cancelled by take(40): later messages are released at once, so the sender keeps going far
        // beyond what the receive window (64) would allow if they were held
        int atCancel = serverEmitted.get();
        await().atMost(WAIT).until(() -> serverEmitted.get() > atCancel + 500);
        hosts.assertNoLeaks();
        client.disconnect().block(WAIT);
        await().atMost(WAIT).untilTrue(serverSendEnded); // the server's send fails when the peer goes
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void cancellingASendMidStreamCancelsUpstreamAndTheConnectionStaysUsable() {
        ConnectionOptions slow = ConnectionOptions.DEFAULT.withReceiveWindow(4);
        List<String> got = new CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer().connectionOptions(slow)
                .handle(c -> c.receive().map(Message::asString).doOnNext(got::add).then())
                .bindNow();
        RdmaConnection client = hosts.rdmaClient(server).connectNow();
        AtomicBoolean upstreamCancelled = new AtomicBoolean();
        AtomicInteger emitted = new AtomicInteger();
        Disposable sending = client.send(Flux.range(0, 1_000_000).map(i -> "s" + i)
                        .doOnNext(x -> emitted.incrementAndGet())
                        .doOnCancel(() -> upstreamCancelled.set(true)))
                .subscribe();
        await().atMost(WAIT).until(() -> emitted.get() > 100);
        sending.dispose();
        await().atMost(WAIT).untilTrue(upstreamCancelled);
        StepVerifier.create(client.send(Mono.just("after"))).expectComplete().verify(WAIT);
        await().atMost(WAIT).until(() -> got.contains("after"));
        // what was posted before the cancel arrived, in order, before "after"
        int posted = got.indexOf("after");
        for (int i = 0; i < posted; i++) {
            assertThat(got.get(i)).isEqualTo("s" + i);
        }
        ReactiveConnection rc = (ReactiveConnection) client;
        await().until(() -> client.loop().submit(rc::registeredOperations).get() == 0);
        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void disposingWithOperationsWaitingForSlotsFailsThemAll() {
        ConnectionOptions tiny = ConnectionOptions.DEFAULT.withSendQueueDepth(2);
        DisposableServer server = hosts.rdmaServer().connectionOptions(tiny)
                .handle(c -> c.allocate().flatMap(b -> c.expose(b, RemoteAccess.READ, RemoteAccess.WRITE)
                        .flatMap(x -> c.send(Mono.just(x.remote().toBytes())))
                        .then(c.onDispose()).doFinally(s -> b.release())))
                .bindNow();
        RdmaConnection client = hosts.rdmaClient(server).options(tiny).connectNow();
        RemoteBuffer target = client.receive().next().map(m -> RemoteBuffer.decode(m.payload(), 0)).block(WAIT);
        List<Mono<?>> ops = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ops.add(client.write(target, 0, "w" + i));
            ops.add(client.read(target, 0, 8));
        }
        AtomicInteger terminated = new AtomicInteger();
        for (Mono<?> op : ops) {
            op.subscribe(null, e -> terminated.incrementAndGet(), terminated::incrementAndGet);
        }
        client.dispose();
        await().atMost(WAIT).until(() -> terminated.get() == ops.size()); // none hangs
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }
}
