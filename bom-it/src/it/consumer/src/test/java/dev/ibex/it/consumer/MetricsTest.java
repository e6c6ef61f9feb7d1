package dev.ibex.it.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The consumer's metrics: with ibex-micrometer on the module path, {@code metrics(true)} records the echo into a
 * registry the user added to Micrometer's global one, as a reactor-netty user would.
 */
class MetricsTest {

    @Test
    void theEchoIsSeenInAMicrometerRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.addRegistry(registry);
        try {
            assertEquals(List.of("one", "two", "three"), Echo.echo(true));

            Timer connect = registry.find("ibex.rdma.client.connect.time").tag("status", "SUCCESS").timer();
            assertNotNull(connect, () -> "no connect timer in " + registry.getMetersAsString());
            assertEquals(1, connect.count());
            assertEquals(3, registry.get("ibex.rdma.client.data.sent").summary().count());
            assertTrue(registry.get("ibex.rdma.server.data.received").summary().totalAmount() >= 11,
                    registry::getMetersAsString); // "one" "two" "three": 11 bytes at least
        } finally {
            Metrics.removeRegistry(registry);
        }
    }
}
