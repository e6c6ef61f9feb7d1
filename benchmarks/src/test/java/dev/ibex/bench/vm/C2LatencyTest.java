package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.callback.Sides;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    @Timeout(120)
    void aPingPongSplitOverTwoSidesRunsEachHalfAloneAndReportsAsTheMinimalOneDoes() throws Exception {
        Sides sides = LoopbackHosts.softRoce(7670);
        String[] server = {"server", "127.0.0.3", "7670", "200", "64"};
        String[] client = {"client", "127.0.0.3", "7670", "200", "64"};
        CompletableFuture<String> served = CompletableFuture.supplyAsync(() -> PingPongJvm.oneSide(server, sides));
        Thread.sleep(500); // the server half listens first, as PingPongProcesses waits for it

        String line = PingPongJvm.oneSide(client, sides);

        double[] f = PingPongProcesses.figures("log\n" + line + "\n", "PingPongJvm");
        assertThat(f[0]).isPositive().isLessThan(100_000);
        assertThat(f[1]).isGreaterThanOrEqualTo(f[0]);
        assertThat(f[2]).isNaN(); // no empty-poll figure from Ibex's ping-pong
        // the client's close ends the server half, which returns normally
        assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo("pingpong: done");
    }

    /** A two-process client's run line ends with what the JVM allocated per round trip, never below zero. */
    @Test
    void aRunLineEndsWithTheJvmsAllocationPerRoundTrip() {
        assertThat(PingPongJvm.allocatedBytes()).isNotNegative();
        assertThat(PingPongJvm.allocationSuffix(2_500, 1_000)).isEqualTo(", allocated 2.50 B per round trip");
        assertThat(PingPongJvm.allocationSuffix(-300, 1_000)).isEqualTo(", allocated 0.00 B per round trip");
    }

    /** busy-pairs.sh alternates variants by system property; each side prints what it ran with. */
    @Test
    void aTwoProcessSideNamesItsLookIntervalAndReceiveWindow() {
        assertThat(PingPongJvm.settingsLine(false)).startsWith("pingpong settings: cqPollSpin 20 ms, look interval 16, "
                + "receive window 16 (credit update every 4)");
        assertThat(PingPongJvm.settingsLine(true)).startsWith("pingpong settings: CQ events,")
                .doesNotContain("listening", "one-way"); // not what the scripts wait for or read as figures
    }

    @Test
    void theMinimalPingPongsLineStillCarriesItsEmptyPoll() {
        double[] f = PingPongProcesses.figures(
                "pingpong: iterations 5, size 64, one-way typical 12.50 us, p99 20.00 us, empty poll 88.0 ns", "c");

        assertThat(f).containsExactly(12.5, 20.0, 88.0);
    }

    @Test
    void theRunLinesBeforeTheFiguresLineAreNotReadAsFigures() {
        String out = MinimalPingPong.runLine(1, 2, 30_000, 90_000, 1_234) + "\n"
                + MinimalPingPong.runLine(2, 2, 20_000, 80_000, 0) + "\n"
                + "pingpong: iterations 5, size 64, one-way typical 10.00 us, p99 40.00 us, empty poll 88.0 ns";

        assertThat(MinimalPingPong.runLine(1, 2, 30_000, 90_000, 1_234))
                .isEqualTo("pingpong: run 1 of 2, typical 15.00 us, p99 45.00 us, compiling 1234 ms");
        assertThat(PingPongProcesses.figures(out, "c")).containsExactly(10.0, 40.0, 88.0);
    }

    @Test
    void aServerWaitsForItsClientAsLongAsAColdC2OnlyClientMayTakeToConnect() {
        // in the guest a C2-only JVM took 50-60 s from its start to its connect (2026-11-27 20:00-20:20 UTC); the
        // minimal server's 30 s, then the Ibex server's 60 s, ran out first: REJECTED (no listener) or a timeout
        assertThat(java.time.Duration.ofSeconds(MinimalPingPong.REQUEST_WAIT_SECONDS))
                .isGreaterThanOrEqualTo(C2Latency.CHILD_LIMIT);
    }

    @Test
    void noFiguresIsAnErrorThatShowsTheOutput() {
        assertThatThrownBy(() -> C2Latency.parse("Exception in thread main"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Exception in thread main");
    }
}
