package dev.ibex.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.DatagramEndpoint;
import dev.ibex.cm.reactive.DatagramMessage;
import dev.ibex.cm.reactive.RdmaDatagram;
import dev.ibex.cm.reactive.RdmaDatagramMetrics;
import dev.ibex.cm.reactive.RdmaMembership;
import dev.ibex.cm.reactive.RdmaMulticast;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Datagram and multicast meters on soft-roce loopback: what was sent and received, the receiver's drops, joins,
 * failed joins and leaves are counted exactly, the open endpoints and memberships go back to 0 when they close, and
 * no meter is tagged with a peer or (unless asked) a group.
 */
class DatagramMetricsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final Hosts hosts = new Hosts();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // a group of its own per run, so parallel builds on this host do not hear each other
    private final InetSocketAddress group = new InetSocketAddress("239.198." + ThreadLocalRandom.current().nextInt(256)
            + "." + ThreadLocalRandom.current().nextInt(1, 255), 0);

    @AfterEach
    void close() {
        hosts.close();
    }

    private RdmaDatagram server(MicrometerRdmaMetricsRecorder r) {
        return RdmaDatagram.create().runOn(hosts.server).host(Hosts.SERVER_IP).metrics(r)
                .accept(req -> Mono.just(AcceptDecision.accept()));
    }

    private RdmaDatagram client(MicrometerRdmaMetricsRecorder r) {
        return RdmaDatagram.create().runOn(hosts.client).host(Hosts.CLIENT_IP).metrics(r);
    }

    private double gauge(String name, String device) {
        return registry.get(name).tag("device", device).gauge().value();
    }

    private DistributionSummary summary(String name, String device) {
        return registry.get(name).tag("device", device).summary();
    }

    private static InetSocketAddress at(DatagramEndpoint d) {
        return new InetSocketAddress(Hosts.SERVER_IP, d.localAddress().getPort());
    }

    @Test
    void datagramsAndBytesEachWayAreCountedAndTheOpenEndpointsReturnToZero() {
        MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, "datagram", false);
        DatagramEndpoint service = server(r).bindNow();
        DatagramEndpoint me = client(r).bindNow();
        assertThat(gauge("ibex.rdma.datagram.endpoints.active", "srv")).isEqualTo(1);
        assertThat(gauge("ibex.rdma.datagram.endpoints.active", "cli")).isEqualTo(1);

        UdPeer peer = me.resolve(at(service), null).block(WAIT);
        byte[] hundred = new byte[100];
        assertThat(service.receive().map(DatagramMessage::length).take(5)
                .doOnSubscribe(x -> me.send(peer, Flux.range(0, 5).map(i -> hundred)).subscribe())
                .collectList().block(WAIT)).containsExactly(100, 100, 100, 100, 100);

        DistributionSummary sent = summary("ibex.rdma.datagram.data.sent", "cli");
        assertThat(sent.count()).isEqualTo(5);
        assertThat(sent.totalAmount()).isEqualTo(500);
        DistributionSummary received = summary("ibex.rdma.datagram.data.received", "srv");
        assertThat(received.count()).isEqualTo(5);
        assertThat(received.totalAmount()).isEqualTo(500);
        assertThat(received.getId().getBaseUnit()).isEqualTo("bytes");
        assertThat(registry.get("ibex.rdma.datagram.data.received").tag("device", "cli").summary().count()).isZero();
        assertThat(registry.get("ibex.rdma.datagram.errors").tag("device", "cli").counter().count()).isZero();
        assertThat(registry.get("ibex.rdma.datagram.drops").tag("device", "srv").functionCounter().count()).isZero();
        assertThat(registry.get("ibex.rdma.datagram.data.sent").tags("provider", "soft-roce", "device", "cli", "loop",
                "cli-loop-0").summary().count()).isEqualTo(5);

        peer.close();
        me.dispose();
        service.dispose();
        me.onDispose().block(WAIT);
        service.onDispose().block(WAIT);
        assertThat(gauge("ibex.rdma.datagram.endpoints.active", "srv")).isZero();
        assertThat(gauge("ibex.rdma.datagram.endpoints.active", "cli")).isZero();
        assertBoundedTags(List.of());
    }

    @Test
    void theReceiversDropsAreACounterThatOutlivesTheEndpoint() {
        MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, "datagram", false);
        DatagramEndpoint service = server(r).receiveQueue(0).bindNow(); // nobody subscribes: every datagram drops
        DatagramEndpoint me = client(r).bindNow();
        UdPeer peer = me.resolve(at(service), null).block(WAIT);
        me.send(peer, Flux.range(0, 4).map(i -> "x")).block(WAIT);
        await().atMost(WAIT).until(() -> service.drops() == 4);
        assertThat(registry.get("ibex.rdma.datagram.drops").tag("device", "srv").functionCounter().count())
                .isEqualTo(4);

        peer.close();
        service.dispose();
        service.onDispose().block(WAIT);
        // closed: its count stays in the sum, which never goes down
        assertThat(registry.get("ibex.rdma.datagram.drops").tag("device", "srv").functionCounter().count())
                .isEqualTo(4);
        me.dispose();
        me.onDispose().block(WAIT);
    }

    @Test
    void anEndpointWhoseDeviceGoesCountsAnErrorAndLeavesTheOpenEndpoints() {
        MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, "datagram", false);
        DatagramEndpoint me = client(r).bindNow();
        assertThat(gauge("ibex.rdma.datagram.endpoints.active", "cli")).isEqualTo(1);
        ((dev.ibex.softroce.transport.SoftDevice) hosts.clientFabric.devices().get(0)).close(); // DEVICE_FATAL
        me.onDispose().block(WAIT);
        assertThat(registry.get("ibex.rdma.datagram.errors").tag("device", "cli").counter().count()).isEqualTo(1);
        assertThat(gauge("ibex.rdma.datagram.endpoints.active", "cli")).isZero();
    }

    @Test
    void joinsLeavesFailedJoinsAndTheGroupsTrafficAreCounted() {
        MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, "multicast", false);
        RdmaMembership sub = RdmaMulticast.create().runOn(hosts.server).host(Hosts.SERVER_IP).metrics(r).joinNow(group);
        RdmaMembership pub = RdmaMulticast.create().runOn(hosts.client).host(Hosts.CLIENT_IP).metrics(r)
                .sendOnly(true).joinNow(group);
        assertThat(gauge("ibex.rdma.multicast.memberships.active", "srv")).isEqualTo(1);
        assertThat(gauge("ibex.rdma.multicast.memberships.active", "cli")).isEqualTo(1);
        assertThat(registry.get("ibex.rdma.multicast.join.time").tags("device", "srv", "status", "SUCCESS").timer()
                .count()).isEqualTo(1);

        assertThat(sub.receive().map(DatagramMessage::asString).take(3)
                .doOnSubscribe(x -> pub.send(Flux.just("t1", "t22", "t333")).subscribe())
                .collectList().block(WAIT)).containsExactly("t1", "t22", "t333");
        assertThat(summary("ibex.rdma.multicast.data.sent", "cli").count()).isEqualTo(3);
        assertThat(summary("ibex.rdma.multicast.data.sent", "cli").totalAmount()).isEqualTo(9);
        assertThat(summary("ibex.rdma.multicast.data.received", "srv").count()).isEqualTo(3);
        assertThat(summary("ibex.rdma.multicast.data.received", "srv").totalAmount()).isEqualTo(9);

        // a group the fabric refuses (no IPv6 groups on RoCEv2), and a host without a device
        assertThatThrownBy(() -> RdmaMulticast.create().runOn(hosts.server).host(Hosts.SERVER_IP).metrics(r)
                .join(new InetSocketAddress("ff0e::1234", 0)).block(WAIT)).isInstanceOf(RdmaConnectException.class);
        assertThatThrownBy(() -> RdmaMulticast.create().runOn(hosts.server).host("127.0.0.9").metrics(r).join(group)
                .block(WAIT)).isInstanceOf(RdmaException.class);
        assertThat(registry.get("ibex.rdma.multicast.join.time").tags("device", "srv", "status", "MULTICAST_ERROR")
                .timer().count()).isEqualTo(1);
        assertThat(registry.get("ibex.rdma.multicast.join.time").tags("device", "unknown", "status", "ERROR")
                .timer().count()).isEqualTo(1);

        sub.leave().block(WAIT);
        pub.leave().block(WAIT);
        await().atMost(WAIT).untilAsserted(() -> { // the failed joins' endpoints close on the loop too
            assertThat(registry.find("ibex.rdma.multicast.memberships.active").gauges())
                    .allSatisfy(g -> assertThat(g.value()).isZero());
            assertThat(registry.find("ibex.rdma.multicast.leaves").counters().stream()
                    .mapToDouble(c -> c.count()).sum()).isEqualTo(2); // failed joins leave nothing
        });
        assertBoundedTags(List.of());
    }

    @Test
    void theGroupIsATagOnlyWhenAskedFor() {
        MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, "multicast", true);
        RdmaMembership sub = RdmaMulticast.create().runOn(hosts.server).host(Hosts.SERVER_IP).metrics(r).joinNow(group);
        assertThat(registry.get("ibex.rdma.multicast.memberships.active").tags("device", "srv", "group",
                group.getAddress().getHostAddress()).gauge().value()).isEqualTo(1);
        sub.leave().block(WAIT);
        assertBoundedTags(List.of("group"));
    }

    private void assertBoundedTags(List<String> extra) {
        for (Meter m : registry.getMeters()) {
            for (Tag t : m.getId().getTags()) {
                assertThat(t.getKey()).as(m.getId().toString()).isIn(concat(List.of("provider", "device", "loop",
                        "status"), extra));
                assertThat(t.getValue()).as(m.getId().toString()).doesNotContain(Hosts.CLIENT_IP)
                        .doesNotContain(Hosts.SERVER_IP);
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    @Test
    void recordingADatagramAllocatesNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (String component : new String[] {"datagram", "multicast"}) {
            MicrometerRdmaMetricsRecorder r = MicrometerRdmaMetricsRecorder.create(registry, component, true);
            RdmaDatagramMetrics m = r.datagramMetrics(new RdmaDatagramMetrics.Endpoint("soft-roce", "srv", "loop-0",
                    component.equals("multicast") ? group : null, false), () -> 0);
            for (int i = 0; i < 20_000; i++) { // warm up: code compiled
                m.recordDataSent(64);
                m.recordDataReceived(64);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                m.recordDataSent(64);
                m.recordDataReceived(64);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated by 20,000 datagram records (%s)", component).isLessThan(2_000);
            m.closed();
        }
    }
}
