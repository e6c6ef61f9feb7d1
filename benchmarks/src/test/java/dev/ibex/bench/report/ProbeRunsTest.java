package dev.ibex.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link ProbeRuns}: the pid line a profiler attaches by, the pause, and the medians of the measured runs. */
class ProbeRunsTest {
    @Test
    void announcesThePidAndWaitsTheHold() throws InterruptedException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        ProbeRuns.announce(new PrintStream(bytes, true, StandardCharsets.UTF_8), "64 B", 30);
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(30_000_000L);
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("measuring, pid " + ProcessHandle.current().pid() + ", 64 B" + System.lineSeparator());
    }

    @Test
    void mediansAndMinimaLeaveTheRunsInTheirOrder() {
        double[] runs = {5, 1, 4, 2, 3};
        assertThat(ProbeRuns.median(runs)).isEqualTo(3);
        assertThat(ProbeRuns.min(runs)).isEqualTo(1);
        assertThat(runs).containsExactly(5, 1, 4, 2, 3);
        assertThat(ProbeRuns.median(new double[] {4, 1, 3, 2})).as("the upper of two").isEqualTo(3);
    }
}
