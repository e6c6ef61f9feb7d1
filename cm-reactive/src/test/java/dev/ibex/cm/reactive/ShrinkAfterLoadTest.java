package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ReceiveMode;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.Footprint;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.RdmaCounter;
import dev.ibex.cm.spi.ResourceKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Regression: memory was kept after load — pools stayed at their high-water mark and the shared CQs created for a
 * wave of connections stayed allocated. On soft-roce, a few hundred connections grow both hosts' pools and CQs; once
 * they are closed, both return to their baseline within the idle times, and nothing leaks.
 *
 * <p>The wave also caught a soft-roce bug: on a loaded machine 20 to 125 of the 150 connections failed with
 * {@code RETRY_EXC_ERR}: each loop, busy with the setups, left its peer's ACKs unread in its socket while the
 * retransmit timer, on its own thread, took them for lost (soft-roce's {@code ReceptionProgress},
 * {@code ReceptionBehindTest}).
 */
class ShrinkAfterLoadTest {
    private static final Duration IDLE = Duration.ofMillis(500);
    private static final int CONNECTIONS = 200;

    /** Receive windows of 4 per connection: the pools grow with the connections. */
    @Test
    void poolsAndSharedCqsReturnToTheirBaselineAfterAWaveOfConnectionsWithWindows() {
        // 150 × 4 receives: the pools grow by 600 buffers and keep their send reserve (BufferPool.receiveReserve, 64 of
        // 1,024); 200 left the client 66 buffers, fewer than a connection's receives and the reserve, and was refused
        wave(ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW).withReceiveWindow(4), 8, 150);
    }

    /**
     * Shared receives (the default): the SRQ, refilled as it is consumed, takes buffers from whatever slabs are free;
     * once no connection uses it, it goes with its buffers, and the pools shrink past it. (A wave of echoes need not
     * grow the pools here: the SRQ refills from the buffers the echoes give back.)
     */
    @Test
    void poolsSharedCqsAndTheSrqGoAfterAWaveOfConnectionsWithSharedReceives() {
        wave(ConnectionOptions.DEFAULT, 0, CONNECTIONS);
    }

    private static void wave(ConnectionOptions window, int slabGrowth, int connections) {
        try (SoftHosts hosts = SoftHosts.tuned(o -> o.withQueueIdleTime(IDLE)
                .withBuffers(o.buffers().withShrink(128, IDLE)))) {
            DisposableServer server = hosts.rdmaServer().connectionOptions(window)
                    .handle(c -> c.send(c.receive().map(Message::retain)))
                    .bindNow();
            echo(hosts, server, window, 1).forEach(RdmaConnection::dispose); // the loop devices exist
            await().atMost(Duration.ofSeconds(20)).until(() -> server.activeConnections() == 0 && hosts.qps() == 0);
            Footprint serverBase = hosts.server.footprint();
            Footprint clientBase = hosts.client.footprint();

            List<RdmaConnection> wave = echo(hosts, server, window, connections);
            Footprint serverLoaded = hosts.server.footprint();
            Footprint clientLoaded = hosts.client.footprint();
            System.out.println("SHRINK base " + serverBase + " / " + clientBase);
            System.out.println("SHRINK loaded " + serverLoaded + " / " + clientLoaded);
            assertThat(serverLoaded.slabs()).as("server pool grew").isGreaterThanOrEqualTo(serverBase.slabs() + slabGrowth);
            assertThat(clientLoaded.slabs()).as("client pool grew").isGreaterThanOrEqualTo(clientBase.slabs() + slabGrowth);
            assertThat(serverLoaded.completionQueues()).as("server CQs grew").isGreaterThan(serverBase.completionQueues());
            assertThat(clientLoaded.completionQueues()).as("client CQs grew").isGreaterThan(clientBase.completionQueues());

            long closing = System.nanoTime();
            wave.forEach(RdmaConnection::dispose);
            await().atMost(Duration.ofSeconds(30)).until(() -> server.activeConnections() == 0 && hosts.qps() == 0);
            long closed = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertBaseline("server", hosts.server, serverBase);
                assertBaseline("client", hosts.client, clientBase);
                assertThat(hosts.serverFabric.resources().get(ResourceKind.SHARED_RECEIVE_QUEUE)
                        + hosts.clientFabric.resources().get(ResourceKind.SHARED_RECEIVE_QUEUE)).as("SRQs").isZero();
            });
            System.out.printf("SHRINK back to baseline %d ms after the last connection closed (closing took %d ms): %s"
                    + " / %s%n", (System.nanoTime() - closed) / 1_000_000, (closed - closing) / 1_000_000,
                    hosts.server.footprint(), hosts.client.footprint());
            server.disposeNow(Duration.ofSeconds(20));
            hosts.awaitQuiet();
        }
    }

    /** Back to the baseline: no CQ beyond it, pool slabs at the minimum, nothing posted or held. */
    private static void assertBaseline(String who, EventLoopGroup group, Footprint base) {
        Footprint now = group.footprint();
        assertThat(now.completionQueues()).as(who + " CQs").isEqualTo(base.completionQueues());
        assertThat(now.slabs()).as(who + " slabs: the minimum (2 slabs of 64)").isEqualTo(2);
        assertThat(now.buffersInUse()).as(who + " buffers in use").isZero();
    }

    /** Opens {@code n} connections, each echoing one message, and returns them open. */
    private static List<RdmaConnection> echo(SoftHosts hosts, DisposableServer server, ConnectionOptions options,
            int n) {
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        List<RdmaConnection> connections = Flux.range(0, n)
                .flatMap(i -> hosts.rdmaClient(server).options(options).connectTimeout(Duration.ofSeconds(60))
                        .connect()
                        .flatMap(c -> c.receive().map(Message::asString).take(1)
                                .mergeWith(c.send(Flux.just("echo " + i)).then(Mono.empty()))
                                .single().thenReturn(c))
                        .onErrorResume(e -> {
                            failures.merge(String.valueOf(e), 1, Integer::sum);
                            return Mono.empty();
                        }), n)
                .collectList().block(Duration.ofSeconds(120));
        assertThat(failures).as("failed connections; provider counters: %s", counters(hosts)).isEmpty();
        assertThat(connections).hasSize(n);
        return connections;
    }

    /** Both fabrics' non-zero counters (retransmissions, expiries put off, drops…): what a failure is read with. */
    private static String counters(SoftHosts hosts) {
        StringBuilder b = new StringBuilder();
        for (Fabric f : List.of(hosts.serverFabric, hosts.clientFabric)) {
            for (RdmaCounter c : f.counters()) {
                long v = c.read();
                if (v != 0) {
                    b.append(f == hosts.serverFabric ? " server " : " client ").append(c.name()).append('=').append(v);
                }
            }
        }
        return b.toString();
    }
}
