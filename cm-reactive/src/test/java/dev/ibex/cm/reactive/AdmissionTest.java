package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.NOBODY_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.softroce.net.RequestFlood;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Admission control on the passive side: a flood of connection requests that never complete their handshake
 * (forged REQs from one address) holds at most the per-source half-open bound, the rest is refused at once, and a
 * client from another address connects and exchanges messages during the flood.
 */
class AdmissionTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    /**
     * Regression (ScaleBench: 128 of 1,000 connects refused): a client that opens more connections at once than the
     * server's per-source half-open bound had the excess refused (OVERLOADED) — a legitimate connect storm failed.
     * The reactive client asks an overloaded server again within its connect timeout, so the storm queues.
     */
    @Test
    void aConnectStormPastTheServersPerSourceBoundQueuesInsteadOfFailing() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withHalfOpen(64, 2))
                .handle(c -> c.send(c.receive().map(Message::retain)))
                .bindNow();
        java.util.List<RdmaConnection> all = Flux.range(0, 40)
                .flatMap(i -> hosts.rdmaClient(server).connectTimeout(Duration.ofSeconds(15)).connect(), 40)
                .collectList().block(WAIT);
        assertThat(all).hasSize(40);
        assertThat(server.refusedRequests()).as("the bound did refuse some, which were asked again").isPositive();
        for (RdmaConnection c : all) {
            String echo = c.receive().map(Message::asString).take(1)
                    .mergeWith(c.send(Flux.just("queued")).then(reactor.core.publisher.Mono.empty()))
                    .blockFirst(WAIT);
            assertThat(echo).isEqualTo("queued");
        }
        all.forEach(RdmaConnection::dispose);
        server.disposeNow(WAIT);
    }

    /**
     * Regression (ScaleBench: 45 of 10,000 connects timed out at load 12): while the listener's loop was busy, the
     * CM's backlog (128 by default) filled with requests and dropped the rest silently, as the kernel does; each
     * dropped request was asked again only after the CM response timeout (4.3 s), past many clients' connect timeout.
     * The default backlog is now the half-open bound (1,024), so a burst waits for the loop and what exceeds the
     * half-open bounds is refused at once (REJ OVERLOADED), which the client asks again within milliseconds.
     */
    @Test
    void aBurstOfRequestsWhileTheListenersLoopIsBusyWaitsForItInsteadOfBeingDropped() {
        int burst = 300;
        // the CM's own timings (a dropped request is asked again after 4.3 s) and a client that lets all connect at once
        SoftHosts real = SoftHosts.with(
                java.util.Map.of("ibex.softroce.timerScale", "1", "ibex.softroce.cm.responseTimeout", "20"),
                o -> o.withMaxConcurrentConnects(burst));
        try {
            DisposableServer server = real.rdmaServer().handle(c -> c.receive().then()).bindNow();
            java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
            real.server.loops().get(0).execute(() -> { // the listener's loop: busy while the requests arrive
                busy.countDown();
                long end = System.nanoTime() + 1_500_000_000L;
                while (System.nanoTime() < end) { // a busy loop, not a sleep: BlockHound watches the loops
                    spins++;
                }
            });
            assertThat(awaitLatch(busy)).isTrue();
            long start = System.nanoTime();
            java.util.List<RdmaConnection> all = Flux.range(0, burst)
                    .flatMap(i -> real.rdmaClient(server).connectTimeout(Duration.ofSeconds(4)).connect(), burst)
                    .collectList().block(WAIT);
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("BURST connected=" + all.size() + " in " + ms + " ms, refused=" + server.refusedRequests());
            assertThat(all).as("connects within 4 s, under the CM's 4.3 s retry of a dropped request").hasSize(burst);
            all.forEach(RdmaConnection::dispose);
            Flux.fromIterable(all).flatMap(RdmaConnection::onDispose).blockLast(WAIT);
            server.disposeNow(WAIT);
        } finally {
            real.close();
        }
    }

    private static volatile long spins;

    private static boolean awaitLatch(java.util.concurrent.CountDownLatch l) {
        try {
            return l.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** An overloaded server that stays so fails the connect typed once the connect timeout is spent. */
    @Test
    void aServerThatStaysOverloadedFailsTheConnectTypedWithinTheTimeout() throws Exception {
        int perSource = 1;
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withHalfOpen(1, perSource))
                .bindNow();
        try (RequestFlood flood = new RequestFlood(InetAddress.getByName(NOBODY_IP),
                InetAddress.getByName(SoftHosts.SERVER_IP), hosts.udpPort, server.port(), 7)) {
            flood.send(); // one forged REQ holds the listener's only half-open place until its request times out
            await().atMost(WAIT).until(() -> server.halfOpenConnections() == 1);
            long start = System.nanoTime();
            reactor.test.StepVerifier.create(hosts.rdmaClient(server).connectTimeout(Duration.ofMillis(500)).connect())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(
                            dev.ibex.cm.RdmaConnectException.class, x -> assertThat(x.rejectReason())
                                    .isEqualTo(dev.ibex.cm.RejectReason.OVERLOADED)))
                    .verify(WAIT);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
        server.disposeNow(WAIT);
    }

    /** Regression: every forged REQ got a QP and a receive window; 2,000/s grew the server by gigabytes. */
    @Test
    void aRequestFloodFromOneAddressIsBoundedAndOtherClientsStillConnect() throws Exception {
        int perSource = 8;
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withHalfOpen(64, perSource))
                .handle(c -> c.send(c.receive().map(Message::retain)))
                .bindNow();
        try (RequestFlood flood = new RequestFlood(InetAddress.getByName(NOBODY_IP),
                InetAddress.getByName(SoftHosts.SERVER_IP), hosts.udpPort, server.port(), 42)) {
            for (int i = 0; i < 200; i++) {
                flood.send();
                if (i % 20 == 0) {
                    Thread.sleep(5); // let the loop take them (the CM's backlog drops a burst silently)
                }
            }
            await().atMost(WAIT).until(() -> server.refusedRequests() > 0);
            assertThat(server.halfOpenConnections()).as("half-open after the flood").isLessThanOrEqualTo(perSource);

            long start = System.nanoTime();
            RdmaConnection c = hosts.rdmaClient(server).connectNow(WAIT);
            long connectMs = (System.nanoTime() - start) / 1_000_000;
            String echo = c.receive().map(Message::asString).take(1)
                    .mergeWith(c.send(Flux.just("during the flood")).then(reactor.core.publisher.Mono.empty()))
                    .blockFirst(WAIT);
            assertThat(echo).isEqualTo("during the flood");
            assertThat(connectMs).as("connect time during the flood").isLessThan(5_000);
            System.out.println("ADMISSION connectMs=" + connectMs + " refused=" + server.refusedRequests()
                    + " halfOpen=" + server.halfOpenConnections() + " sent=" + flood.sent());
            c.dispose();
            c.onDispose().block(WAIT);
        }
        long t = System.nanoTime();
        server.disposeNow(WAIT);
        System.out.println("ADMISSION disposeMs=" + (System.nanoTime() - t) / 1_000_000);
    }
}
