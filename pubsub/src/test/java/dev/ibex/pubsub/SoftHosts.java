package dev.ibex.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.SoftRoceProvider;
import dev.ibex.softroce.net.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Soft-roce "hosts" in one JVM: host i has a fabric with one device on 127.0.0.(20+i), all on one free UDP port,
 * each with one event loop and leak-tracking buffers; a {@link PubSub} per host on a multicast range of its own per
 * instance (parallel builds on this machine must not hear each other). {@link #close()} checks that every resource
 * and buffer came back.
 */
final class SoftHosts implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);

    final List<String> ips = new ArrayList<>();
    final List<Fabric> fabrics = new ArrayList<>();
    final List<EventLoopGroup> loops = new ArrayList<>();
    final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    final TopicGroups groups = TopicGroups.hashed("239.201." + ThreadLocalRandom.current().nextInt(256) + ".0/24");

    SoftHosts(int count) {
        for (int i = 0; i < count; i++) {
            ips.add("127.0.0." + (20 + i));
        }
        int port = FreePort.on(ips.toArray(String[]::new));
        LoopOptions options = LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(2))
                .withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(8192).withSlabs(64, 8192)
                        .withLeakTracking(true))
                .withUncaughtHandler(uncaught::add);
        try {
            for (int i = 0; i < count; i++) {
                Fabric f = new SoftRoceProvider().open(ProviderConfig.of(Map.of(
                        "ibex.softroce.port", Integer.toString(port),
                        "ibex.softroce.devices", "h" + i + "=" + ips.get(i))));
                fabrics.add(f);
                loops.add(EventLoopGroup.of(f, options.withThreadName("h" + i + "-loop")));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Pub/sub on host {@code i}, heartbeats every 20 ms, silent after 10 of them (200 ms: a loaded machine stalls a
     * loop for 100 ms now and then, and that is not what the tests look at), 1,024 receives posted per
     * subscriber: half a second at 2,000 messages/s, enough for a loop stalled by a loaded machine, so only the
     * loss a test injects is lost.
     */
    PubSub pubsub(int i) {
        return PubSub.create().runOn(loops.get(i)).host(ips.get(i)).groups(groups).heartbeat(Duration.ofMillis(20))
                .silentAfter(10).receiveWindow(1024, 256);
    }

    SoftFabric soft(int i) {
        return (SoftFabric) fabrics.get(i);
    }

    int memberships() {
        return fabrics.stream().mapToInt(f -> f.resources().get(ResourceKind.MULTICAST)).sum();
    }

    /** Waits until no membership, id or QP is left on any host and no buffer is held. */
    void awaitQuiet() {
        await().atMost(WAIT).untilAsserted(() -> {
            for (Fabric f : fabrics) {
                assertThat(f.resources().get(ResourceKind.MULTICAST)).as("memberships").isZero();
                assertThat(f.resources().get(ResourceKind.CM_ID)).as("CM ids").isZero();
                assertThat(f.resources().get(ResourceKind.QUEUE_PAIR)).as("QPs").isZero();
            }
            for (EventLoopGroup g : loops) {
                if (g.isShuttingDown()) {
                    continue; // a host a test took down
                }
                assertThat(g.bufferLeaks()).as("buffers held").isEmpty();
            }
        });
    }

    @Override
    public void close() {
        try {
            loops.forEach(EventLoopGroup::close);
            for (Fabric f : fabrics) {
                assertThat(f.resources().userResources()).as(f.resources().toString()).isZero();
            }
            assertThat(uncaught).as("uncaught on the loops").isEmpty();
        } finally {
            fabrics.forEach(Fabric::close);
        }
    }
}
