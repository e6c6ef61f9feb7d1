package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.bench.callback.LoopbackHosts;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code c2} workload without the VM: the child JVM's flags (C2 alone, the rest of the bench JVM's kept) and the
 * ping-pong JVM's line, made by a tiny run on soft-roce and read back as the workload reads it.
 */
class C2LatencyTest {

    @Test
    void theChildRunsC2AloneWithTheBenchJvmsOtherFlags() {
        List<String> parent = List.of("--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-XX:StartFlightRecording:filename=x.jfr", "-XX:+TieredCompilation",
                "-XX:AOTCache=a.aot");

        assertThat(C2Latency.c2Flags(parent)).containsExactly("--enable-native-access=ALL-UNNAMED", "-Xmx512m",
                "-XX:+UseSerialGC", "-XX:-TieredCompilation");
        assertThat(VmBench.WORKLOADS).contains("c2");
    }

    @Test
    @Timeout(120)
    void thePingPongJvmsLineCarriesBothModesFigures() {
        int[] port = {7660};
        String line = PingPongJvm.run(p -> LoopbackHosts.softRoce(port[0]++), 7660, 1_000, 200, 64);

        double[] f = C2Latency.parse("some log line\n" + line + "\n");

        assertThat(f).hasSize(4);
        for (double v : f) {
            assertThat(v).isPositive().isLessThan(100_000);
        }
        assertThat(f[1]).isGreaterThanOrEqualTo(f[0]); // p99 >= typical
        assertThat(f[3]).isGreaterThanOrEqualTo(f[2]);
    }

    @Test
    void noFiguresIsAnErrorThatShowsTheOutput() {
        assertThatThrownBy(() -> C2Latency.parse("Exception in thread main"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Exception in thread main");
    }
}
