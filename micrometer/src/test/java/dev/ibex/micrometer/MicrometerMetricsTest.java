package dev.ibex.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Micrometer recorder on soft-roce loopback: after a known workload (two connects, one refused, three 100-byte
 * echoes, one failed RDMA WRITE) the meters say exactly that, and the provider's and loops' counters are registered
 * as function counters while the loops run.
 */
class MicrometerMetricsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final Hosts hosts = new Hosts();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void close() {
        hosts.close();
    }

    private DisposableServer server(RdmaServer s) {
        return s.runOn(hosts.server).host(Hosts.SERVER_IP).port(0)
                .accept(req -> Mono.just(new String(req.privateData(), StandardCharsets.UTF_8).startsWith("no")
                        ? AcceptDecision.reject("not you".getBytes(StandardCharsets.UTF_8)) : AcceptDecision.accept()))
                .handle(c -> c.send(c.receive())) // echo
                .bindNow(WAIT);
    }

    private RdmaClient client(DisposableServer s) {
        return RdmaClient.create().runOn(hosts.client).remoteAddress(new InetSocketAddress(Hosts.SERVER_IP, s.port()))
                .connectTimeout(Duration.ofSeconds(10));
    }

    @Test
    void connectsRejectsBytesAndErrorsAreRecordedWithBoundedTags() {
        DisposableServer s = server(RdmaServer.create().metrics(
                MicrometerRdmaMetricsRecorder.create(registry, "server", false)));
        RdmaClient client = client(s).metrics(MicrometerRdmaMetricsRecorder.create(registry, "client", false));

        RdmaConnection c = client.connectNow();
        RdmaConnection idle = client.connectNow();
        assertThatThrownBy(() -> client.privateData("no".getBytes(StandardCharsets.UTF_8)).connectNow())
                .isInstanceOfSatisfying(RdmaConnectException.class,
                        e -> assertThat(e.reason()).isEqualTo(RdmaConnectException.Reason.REJECTED));

        byte[] hundred = new byte[100];
        List<Integer> echoed = c.receive().take(3).map(Message::length)
                .doOnSubscribe(x -> c.send(Flux.just(hundred, hundred, hundred)).subscribe())
                .collectList().block(WAIT);
        assertThat(echoed).containsExactly(100, 100, 100);

        assertThat(registry.get("ibex.rdma.client.connect.time").tag("status", "SUCCESS").timer().count()).isEqualTo(2);
        assertThat(registry.get("ibex.rdma.client.connect.time").tag("status", "REJECTED").timer().count())
                .isEqualTo(1);
        assertThat(registry.get("ibex.rdma.server.accept.time").tag("status", "ACCEPTED").timer().count())
                .isEqualTo(2);
        assertThat(registry.get("ibex.rdma.server.accept.time").tag("status", "REJECTED").timer().count())
                .isEqualTo(1);
        await().atMost(WAIT).untilAsserted(() -> {
            assertSummary("ibex.rdma.client.data.sent", 3, 300);
            assertSummary("ibex.rdma.server.data.received", 3, 300);
            assertSummary("ibex.rdma.server.data.sent", 3, 300);
            assertSummary("ibex.rdma.client.data.received", 3, 300);
        });

        // an RDMA WRITE to a key nobody gave out: the operation fails (and the connection with it)
        assertThatThrownBy(() -> idle.write(new RemoteBuffer(0x10000, 0x1234_5600, 64), 0, "x").block(WAIT))
                .isNotNull();
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(registry.get("ibex.rdma.client.errors").counter().count()).isGreaterThanOrEqualTo(1));

        // bounded tags: no meter carries the peer's address or anything per connection
        assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTags())
                .noneMatch(t -> t.getKey().equals("remote.address") || t.getValue().contains(Hosts.CLIENT_IP)));
        c.dispose();
        s.disposeNow(WAIT);
    }

    private void assertSummary(String name, long count, double total) {
        DistributionSummary d = registry.get(name).summary();
        assertThat(d.count()).as(name + " count").isEqualTo(count);
        assertThat(d.totalAmount()).as(name + " bytes").isEqualTo(total);
        assertThat(d.getId().getBaseUnit()).isEqualTo("bytes");
    }

    @Test
    void theActiveConnectionsGaugesCountOpenConnectionsAndReturnToZeroAfterClose() {
        DisposableServer s = server(RdmaServer.create().metrics(
                MicrometerRdmaMetricsRecorder.create(registry, "server", false)));
        RdmaClient client = client(s).metrics(MicrometerRdmaMetricsRecorder.create(registry, "client", false));
        RdmaConnection a = client.connectNow();
        RdmaConnection b = client.connectNow();
        assertThatThrownBy(() -> client.privateData("no".getBytes(StandardCharsets.UTF_8)).connectNow())
                .isInstanceOf(RdmaConnectException.class); // refused: never open
        assertThat(registry.get("ibex.rdma.client.connections.active").gauge().value()).isEqualTo(2);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(registry.get("ibex.rdma.server.connections.active").gauge().value()).isEqualTo(2));

        a.dispose();
        a.onDispose().block(WAIT);
        assertThat(registry.get("ibex.rdma.client.connections.active").gauge().value()).isEqualTo(1);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(registry.get("ibex.rdma.server.connections.active").gauge().value()).isEqualTo(1));
        s.disposeNow(WAIT); // closes the server's side of b; the client's ends when it hears the disconnect
        assertThat(registry.get("ibex.rdma.server.connections.active").gauge().value()).isZero();
        b.onDispose().block(WAIT);
        assertThat(registry.get("ibex.rdma.client.connections.active").gauge().value()).isZero();
        assertThat(registry.find("ibex.rdma.server.connections.active").gauge().getId().getTags()).isEmpty();
    }

    @Test
    void theRemoteAddressIsATagOnlyWhenAskedFor() {
        DisposableServer s = server(RdmaServer.create());
        RdmaConnection c = client(s).metrics(MicrometerRdmaMetricsRecorder.create(registry, "client", true))
                .connectNow();
        String peer = Hosts.SERVER_IP + ":" + s.port();
        assertThat(registry.get("ibex.rdma.client.connect.time").tags("status", "SUCCESS", "remote.address", peer)
                .timer().count()).isEqualTo(1);
        c.send(Mono.just("hi")).block(WAIT);
        assertThat(registry.get("ibex.rdma.client.data.sent").tag("remote.address", peer).summary().totalAmount())
                .isEqualTo(2);
        c.dispose();
        s.disposeNow(WAIT);
    }

    @Test
    void theProvidersCountersAndTheLoopsCreditStallsAreFunctionCountersUntilTheLoopsClose() {
        // a receive window of 4 at the server: a burst of 20 messages spends the client's credits, which it then
        // waits for (a credit stall on the client's loop)
        DisposableServer s = server(RdmaServer.create().connectionOptions(
                ConnectionOptions.DEFAULT.withReceiveWindow(4)));
        RdmaConnection c = client(s).metrics(MicrometerRdmaMetricsRecorder.create(registry, "client", false))
                .connectNow();
        c.receive().take(20).then().and(c.send(Flux.range(0, 20).map(i -> new byte[64]))).block(WAIT);

        List<String> names = registry.getMeters().stream().filter(m -> m instanceof FunctionCounter)
                .map(m -> m.getId().getName()).distinct().toList();
        assertThat(names).contains("ibex.rdma.retransmissions", "ibex.rdma.retransmit.timeouts",
                "ibex.rdma.rnr.naks.received", "ibex.rdma.rnr.naks.sent", "ibex.rdma.out.of.sequence",
                "ibex.rdma.duplicates", "ibex.rdma.invalid.responses", "ibex.rdma.path.migrations",
                "ibex.rdma.drops.datagram", "ibex.rdma.drops.malformed", "ibex.rdma.drops.unknown.qp",
                "ibex.rdma.drops.off.path", "ibex.rdma.drops.wrong.transport", "ibex.rdma.credit.stalls");
        assertThat(registry.get("ibex.rdma.retransmissions").tags("provider", "soft-roce", "device", "cli")
                .functionCounter().count()).isNotNegative();
        FunctionCounter stalls = registry.get("ibex.rdma.credit.stalls")
                .tags("provider", "soft-roce", "loop", "cli-loop-0").functionCounter();
        assertThat(stalls.count()).isGreaterThanOrEqualTo(1);
        assertThat(registry.getMeters()).filteredOn(m -> m instanceof FunctionCounter)
                .allSatisfy(m -> assertThat(m.getId().getTags()).allSatisfy(t -> assertThat(t.getKey())
                        .isIn("provider", "device", "port", "loop")));

        c.dispose();
        s.disposeNow(WAIT);
        hosts.client.close();
        await().atMost(WAIT).until(() -> registry.find("ibex.rdma.credit.stalls").tag("loop", "cli-loop-0")
                .meters().isEmpty());
    }

    @Test
    void recordingAMessageAllocatesNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        InetSocketAddress peer = new InetSocketAddress(Hosts.SERVER_IP, 7471);
        for (boolean remoteTag : new boolean[] {false, true}) {
            MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, "client", remoteTag);
            for (int i = 0; i < 20_000; i++) { // warm up: meters registered, code compiled
                r.recordDataSent(peer, 64);
                r.recordDataReceived(peer, 64);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                r.recordDataSent(peer, 64);
                r.recordDataReceived(peer, 64);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated by 20,000 records (remote tag %s)", remoteTag)
                    .isLessThan(2_000);
        }
    }

    @Test
    void metricsTrueFindsThisModuleAndRecordsIntoTheGlobalRegistry() {
        Metrics.addRegistry(registry);
        try {
            DisposableServer s = server(RdmaServer.create().metrics(true));
            RdmaConnection c = client(s).metrics(true).connectNow();
            assertThat(registry.get("ibex.rdma.server.accept.time").tag("status", "ACCEPTED").timer().count())
                    .isGreaterThanOrEqualTo(1);
            assertThat(registry.get("ibex.rdma.client.connect.time").tag("status", "SUCCESS").timer().count())
                    .isGreaterThanOrEqualTo(1);
            assertThat(registry.find("ibex.rdma.drops.off.path").tag("device", "srv").meters()).hasSize(1);
            c.dispose();
            s.disposeNow(WAIT);
        } finally {
            Metrics.removeRegistry(registry);
            for (Meter m : registry.getMeters()) {
                Metrics.globalRegistry.remove(m.getId());
            }
        }
    }
}
