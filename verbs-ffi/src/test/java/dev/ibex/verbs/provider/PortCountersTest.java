package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.RdmaCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rdma-core provider's counters come from the port counters sysfs shows, and from nothing else. */
class PortCountersTest {

    @Test
    void everyReadableCounterFileOfEveryPortIsACounterReadWhenRead(@TempDir Path root) throws IOException {
        Path port = root.resolve("rxe0/ports/1");
        Files.createDirectories(port.resolve("counters"));
        Files.createDirectories(port.resolve("hw_counters"));
        Files.writeString(port.resolve("counters/port_rcv_packets"), "12\n");
        Files.writeString(port.resolve("hw_counters/rcvd_rnr_err"), "3\n");
        Files.writeString(port.resolve("hw_counters/lifespan"), "10\n"); // a setting, not a counter
        Files.writeString(port.resolve("hw_counters/garbage"), "n/a\n");

        List<RdmaCounter> counters = PortCounters.of(root, List.of("rxe0", "absent0"));

        assertThat(counters).extracting(RdmaCounter::name).containsExactly("port.port_rcv_packets", "hw.rcvd_rnr_err");
        assertThat(counters).allSatisfy(c -> assertThat(c.tags()).isEqualTo(Map.of("device", "rxe0", "port", "1")));
        RdmaCounter rnr = counters.get(1);
        assertThat(rnr.read()).isEqualTo(3);
        Files.writeString(port.resolve("hw_counters/rcvd_rnr_err"), "5\n");
        assertThat(rnr.read()).isEqualTo(5);
        Files.delete(port.resolve("hw_counters/rcvd_rnr_err"));
        assertThat(rnr.read()).as("a file that disappears keeps its last value").isEqualTo(5);
    }

    @Test
    void withoutSysfsThereAreNoCounters(@TempDir Path root) {
        assertThat(PortCounters.of(root.resolve("missing"), List.of("mlx5_0"))).isEmpty();
    }
}
