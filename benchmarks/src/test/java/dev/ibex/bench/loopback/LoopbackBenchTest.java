package dev.ibex.bench.loopback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Watchdog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The loopback workloads run end to end on soft-roce and report a measured row per metric (not their speed). */
class LoopbackBenchTest {
    final ByteArrayOutputStream log = new ByteArrayOutputStream();
    final LoopbackBench bench = new LoopbackBench(new PrintStream(log, true, StandardCharsets.UTF_8), 1, 200, 16, 20,
            Watchdog.inert());

    @Test
    @Timeout(60)
    void pingPongReportsLatencyOfBothSidesPerRound() {
        RatioTable table = new RatioTable("t", "raw UDP");
        bench.pingPong(table);

        assertThat(table.rows()).extracting(Comparison::metric).containsExactly("soft-roce/UDP ping-pong 64 B p50 (us)",
                "soft-roce/UDP ping-pong 64 B p99 (us)", "  p50 vs RC-shaped UDP (hand-off+ACK)",
                "  CPU per round trip (us, process)", "  p50, loops that never spin (adaptiveSpinNanos=0)",
                "  CPU per round trip, loops that never spin", "soft-roce/UDP ping-pong 64 B spinning p50 (us)",
                "soft-roce/UDP ping-pong 64 B spinning p99 (us)", "  CPU per round trip (us, process), spinning");
        for (int i : new int[] {0, 1, 4, 6, 7}) { // the CPU rows may read 0 over 200 round trips (the clock's grain)
            assertMeasured(table.rows().get(i));
        }
        assertThat(table.rows().get(0).target().bound()).isEqualTo(1.3);
        assertThat(table.rows().get(1).target().bound()).isEqualTo(1.5);
        assertThat(table.rows().get(3).target().bound()).isEqualTo(1.3);
        assertThat(table.rows().get(4).target().bound()).as("the loops that never spin are information").isNaN();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("ping-pong round 1: raw p50")
                .contains("ping-pong round 1, loops that never spin: p50").contains("spinning ping-pong round 1: raw p50");
    }

    @Test
    @Timeout(60)
    void writeStreamReportsBandwidthOfBothSides() {
        RatioTable table = new RatioTable("t", "raw UDP");
        bench.writeBandwidth(table);

        Comparison bw = table.rows().get(0);
        assertThat(bw.metric()).isEqualTo("soft-roce/UDP WRITE 64 KiB (MB/s)");
        assertMeasured(bw);
        assertThat(bw.target().atMost()).isFalse();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("write round 1: raw");
    }

    @Test
    @Timeout(60)
    void sendStreamReportsMessageRateAndRetransmissions() {
        // the stream outruns the receiver's window of 512: before the harness waited for writability it stalled
        RatioTable table = new RatioTable("t", "raw UDP");
        bench.sendRate(table);

        Comparison rate = table.rows().get(0);
        assertThat(rate.metric()).isEqualTo("soft-roce/UDP SEND 64 B (k msg/s)");
        assertMeasured(rate);
        assertThat(rate.target().bound()).isEqualTo(0.9);
        assertThat(table.notes()).anyMatch(n -> n.contains("retransmissions without injected faults: baseline"));
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("send round 1: raw");
    }

    @Test
    @Timeout(60)
    void reactiveAndCallbackPingPongsReportTheirPercentiles() {
        RatioTable table = new RatioTable("t", "baseline");
        bench.reactiveVsCallback(table);

        assertThat(table.rows()).extracting(Comparison::metric).containsExactly(
                "reactive/callback ping-pong p50 (us)", "reactive/callback ping-pong p99 (us)",
                "reactive/callback ping-pong p99.9 (us)");
        table.rows().forEach(LoopbackBenchTest::assertMeasured);
        assertThat(table.rows().get(0).target().bound()).isEqualTo(1.1);
        assertThat(table.rows().get(2).target().isSet()).isFalse();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("reactive/callback round 1: callback p50");
    }

    @Test
    @Timeout(90)
    void setupReportsRateAndLatencyAgainstTcpAndTheUdpHandshake() {
        RatioTable table = new RatioTable("t", "TCP");
        bench.setup(table);

        assertThat(table.rows()).extracting(Comparison::metric).containsExactly(
                "soft-roce/TCP setup rate (conn/s, 64 in flight)", "  setup rate vs raw UDP handshake",
                "soft-roce/TCP setup latency p50 (us)", "  setup latency p50 vs raw UDP handshake",
                "soft-roce/TCP setup latency p99 (us)", "  setup rate, early round (JIT still compiling)",
                "  setup latency p50, early round (JIT still compiling)");
        table.rows().forEach(LoopbackBenchTest::assertMeasured);
        assertThat(table.rows().get(5).target().isSet()).as("the early round is information").isFalse();
        assertThat(table.rows().get(0).target().atMost()).isFalse();
        assertThat(table.rows().get(0).target().bound()).isEqualTo(1.0);
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("setup round 1: rate TCP");
        // Ibex warms up to 32 runs' worth of connections (20 here) before the measured round
        assertThat(table.notes()).anyMatch(n -> n.matches("(?s).*Ibex warmed to 6[0-9][0-9] connections.*"));
    }

    static void assertMeasured(Comparison c) {
        assertThat(c.baseline()).as(c.metric() + " baseline").isPositive().isFinite();
        assertThat(c.ibex()).as(c.metric() + " Ibex").isPositive().isFinite();
        assertThat(c.spread()).isEqualTo("1 round");
    }

}
