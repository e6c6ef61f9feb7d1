package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ResourceKind;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * cm-core's in-memory fake fabric under an event loop group, for what the soft provider cannot produce: scripted
 * CM events (ROUTE_ERROR, CONNECT_ERROR, DEVICE_REMOVAL, a disconnect before ESTABLISHED, each connect state held
 * still), path migration (loopback), device events. {@link #close()} checks that everything was released.
 */
final class FakeHosts implements AutoCloseable {
    final FakeFabric fabric;
    final EventLoopGroup group;
    final List<Throwable> uncaught = new CopyOnWriteArrayList<>();

    private FakeHosts(FakeFabric fabric) {
        this.fabric = fabric;
        group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(2).withCloseTimeout(Duration.ofSeconds(2))
                .withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(1024).withSlabs(64, 1024)
                        .withLeakTracking(true))
                .withUncaughtHandler(uncaught::add));
    }

    static FakeHosts scripted() {
        return new FakeHosts(FakeFabric.scripted());
    }

    static FakeHosts loopback() {
        return new FakeHosts(FakeFabric.loopback());
    }

    static FakeHosts loopbackWithoutApm() {
        return new FakeHosts(FakeFabric.loopbackWithoutApm());
    }

    /** The one CM id alive (scripted: the connection being set up), once it made {@code call}. */
    FakeCmId idAfter(String call) {
        await().atMost(Duration.ofSeconds(5)).until(() -> fabric.ids().stream()
                .anyMatch(i -> i.calls().stream().anyMatch(c -> c.startsWith(call))));
        return fabric.ids().stream().filter(i -> i.calls().stream().anyMatch(c -> c.startsWith(call))).findFirst()
                .orElseThrow();
    }

    void awaitNoEndpoints() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(fabric.count(ResourceKind.CM_ID)).as("CM ids").isZero();
            assertThat(fabric.count(ResourceKind.QUEUE_PAIR)).as("QPs").isZero();
            assertThat(group.bufferLeaks()).isEmpty();
        });
    }

    @Override
    public void close() {
        group.close();
        assertThat(fabric.resources().total()).as(fabric.resources().toString()).isZero();
        assertThat(fabric.violations()).isEmpty();
        assertThat(uncaught).isEmpty();
        fabric.close();
    }
}
