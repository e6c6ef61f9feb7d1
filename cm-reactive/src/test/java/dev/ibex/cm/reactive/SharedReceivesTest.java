package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.LoopOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Shared receives at small scale: more connections than a window per connection could serve, on both ends, and a
 * slow consumer that holds back its own sender only. Each scenario failed before shared receives were the default:
 * the 65th connection got no receive, and a client with many connections failed every send.
 */
class SharedReceivesTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    /** 256 buffers of 4 KiB per loop: a window of 64 per connection would serve 4 connections. */
    static final BufferPool.Options SMALL = LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 256);
    /** Patient transport timers: these tests are about capacity, not timing (a loaded machine stalls for a while). */
    final SoftHosts hosts = SoftHosts.patient(SMALL);

    @AfterEach
    void close() {
        hosts.close();
    }

    private static String echo(RdmaConnection c, String text) {
        return c.receive().map(Message::asString).take(1)
                .mergeWith(c.send(Mono.just(text)).then(Mono.empty()))
                .blockFirst(WAIT);
    }

    @Test
    void moreIdleConnectionsThanWindowsFitStillLetANewClientInAndEveryConnectionEchoes() {
        DisposableServer server = hosts.rdmaServer().handle(c -> c.send(c.receive().map(Message::retain)))
                .bindNow();
        List<RdmaConnection> idle = new ArrayList<>();
        for (int i = 0; i < 40; i++) { // 10 × what windows of 64 would allow, on both ends
            idle.add(hosts.rdmaClient(server).connectNow(WAIT));
        }
        RdmaConnection late = hosts.rdmaClient(server).connectNow(WAIT);
        assertThat(echo(late, "late")).isEqualTo("late");
        AtomicInteger echoed = new AtomicInteger();
        for (RdmaConnection c : idle) {
            if (("m" + idle.indexOf(c)).equals(echo(c, "m" + idle.indexOf(c)))) {
                echoed.incrementAndGet();
            }
        }
        assertThat(echoed).as("every connection echoes").hasValue(40);
        idle.forEach(RdmaConnection::dispose);
        late.dispose();
        server.disposeNow(WAIT);
    }

    /**
     * A server whose pool cannot give one more connection its receives (windows of 64, no shared receive queue, 256
     * buffers) refuses the next request at connect time, typed (REJ no resources, {@code RejectReason.NO_RESOURCES}
     * with the figures) — it never accepts a connection it would starve — and the connections it has keep echoing;
     * once one closes, a new client gets in.
     */
    @Test
    void aServerWithoutBuffersForOneMoreConnectionRefusesItTypedAndTheOthersGoOn() throws InterruptedException {
        try (SoftHosts h = SoftHosts.split(
                o -> o.withSrqDepth(0).withBuffers(o.buffers().withSlabs(64, 256)), o -> o)) {
            DisposableServer server = h.rdmaServer().handle(c -> c.send(c.receive().map(Message::retain)))
                    .bindNow();
            List<RdmaConnection> fit = new ArrayList<>();
            List<java.util.concurrent.BlockingQueue<String>> echoes = new ArrayList<>();
            for (int i = 0; i < 4; i++) { // 4 windows of 64 take the server's 256 buffers (but its send reserve)
                RdmaConnection c = h.rdmaClient(server).connectNow(WAIT);
                java.util.concurrent.BlockingQueue<String> q = new java.util.concurrent.LinkedBlockingQueue<>();
                c.receive().map(Message::asString).subscribe(q::add);
                fit.add(c);
                echoes.add(q);
            }
            for (int i = 0; i < 4; i++) { // established, and the server can still send: it kept buffers for that
                fit.get(i).send(Mono.just("before")).block(WAIT);
                assertThat(echoes.get(i).poll(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                        .as("echo on connection %d", i).isEqualTo("before");
            }
            reactor.test.StepVerifier.create(h.rdmaClient(server).connect())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(
                            dev.ibex.cm.RdmaConnectException.class, x -> {
                                assertThat(x.rejectReason()).isEqualTo(dev.ibex.cm.RejectReason.NO_RESOURCES);
                                assertThat(x.getMessage()).contains("no receive buffers");
                            }))
                    .verify(WAIT);
            for (int i = 0; i < 4; i++) {
                fit.get(i).send(Mono.just("after")).block(WAIT);
                assertThat(echoes.get(i).poll(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                        .as("the refusal ended no other connection").isEqualTo("after");
            }
            RdmaConnection gone = fit.remove(0);
            gone.dispose();
            gone.onDispose().block(WAIT);
            RdmaConnection next = org.awaitility.Awaitility.await().atMost(WAIT).ignoreExceptions()
                    .until(() -> h.rdmaClient(server).connectNow(WAIT), c -> c != null);
            assertThat(echo(next, "room again")).isEqualTo("room again");
            fit.add(next);
            fit.forEach(RdmaConnection::dispose);
            Flux.fromIterable(fit).flatMap(RdmaConnection::onDispose).blockLast(WAIT);
            server.disposeNow(WAIT);
        }
    }

    @Test
    void aSlowConsumerStallsItsOwnSenderOnlyAndLosesNothing() {
        List<RdmaConnection> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer().doOnConnection(accepted::add).bindNow();
        RdmaConnection slow = hosts.rdmaClient(server).connectNow(WAIT);
        RdmaConnection fast = hosts.rdmaClient(server).connectNow(WAIT);
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> accepted.size() == 2);
        RdmaConnection slowServer = accepted.get(0).remoteAddress().equals(slow.localAddress()) ? accepted.get(0)
                : accepted.get(1);
        RdmaConnection fastServer = slowServer == accepted.get(0) ? accepted.get(1) : accepted.get(0);

        // the slow side reads nothing for now: its sender runs out of credits and waits
        AtomicInteger slowSent = new AtomicInteger();
        slow.send(Flux.range(0, 500).map(i -> "s" + i).doOnNext(x -> slowSent.incrementAndGet()))
                .subscribe(null, e -> { });
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> slowSent.get() > 0);
        // meanwhile 2,000 messages pass through the same server loop and its shared receive queue
        List<String> got = fastServer.receive().map(Message::asString).take(2000)
                .mergeWith(fast.send(Flux.range(0, 2000).map(i -> "f" + i)).then(Mono.empty()))
                .collectList().block(WAIT);
        assertThat(got).hasSize(2000);
        assertThat(slowSent.get()).as("the slow sender is held back by credits").isLessThan(500);
        // then the slow consumer reads: everything arrives, in order
        List<String> slowGot = slowServer.receive().map(Message::asString).take(500).collectList().block(WAIT);
        assertThat(slowGot).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 500)
                .mapToObj(i -> "s" + i).toList());
        slow.dispose();
        fast.dispose();
        server.disposeNow(WAIT);
    }
}
