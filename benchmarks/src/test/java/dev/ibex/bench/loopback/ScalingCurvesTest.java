package dev.ibex.bench.loopback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.Curve;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Watchdog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scaling curves: the grid issue 17 asks for, how the settings size each run, the command line that reaches them,
 * and a tiny run end to end (a row per point, every curve drawn from measured points; not their speed).
 */
class ScalingCurvesTest {

    @Test
    void bothSettingsMeasureTheWholeGridOfTheIssue() {
        for (ScalingCurves.Settings s : List.of(ScalingCurves.Settings.FULL, ScalingCurves.Settings.QUICK)) {
            assertThat(s.sizes()).containsExactly(64, 256, 1024, 4096, 16384, 65536, 262144, 1048576);
            assertThat(s.connections()).containsExactly(1, 4, 16, 64, 256);
            assertThat(s.loops()).containsExactly(1, 2);
        }
        assertThat(ScalingCurves.Settings.of(true, 3).window()).isLessThan(ScalingCurves.Settings.of(false, 3).window());
        assertThat(ScalingCurves.Settings.of(false, 7).rounds()).isEqualTo(7);
    }

    @Test
    void runsAreBoundedByVolumeAndCountWhateverTheSize() {
        ScalingCurves.Settings s = ScalingCurves.Settings.FULL; // 16 MiB, at most 20,000 messages, 1,000 round trips
        assertThat(s.messages(64)).isEqualTo(20_000);
        assertThat(s.messages(64 << 10)).isEqualTo(256);
        assertThat(s.messages(1 << 20)).isEqualTo(64); // at least 64 messages
        assertThat(s.roundTrips(64)).isEqualTo(1_000);
        assertThat(s.roundTrips(16 << 10)).isEqualTo(1_000);
        assertThat(ScalingCurves.Settings.writeDepth(64)).isEqualTo(128);
        assertThat(ScalingCurves.Settings.writeDepth(1 << 20)).isEqualTo(16);
        assertThat(Curve.sizeLabel(64)).isEqualTo("64 B");
        assertThat(Curve.sizeLabel(16 << 10)).isEqualTo("16 KiB");
        assertThat(Curve.sizeLabel(1 << 20)).isEqualTo("1 MiB");
    }

    @Test
    void theCommandLineOffersTheCurvesOutsideTheDefaultSet() {
        assertThat(LoopbackBench.WORKLOADS).contains("curves");
        StringBuilder help = new StringBuilder();
        java.io.StringWriter w = new java.io.StringWriter();
        int status = Cli.commandLine(new LoopbackBench.Command()).setOut(new PrintWriter(w, true)).execute("--help");
        help.append(w);
        assertThat(status).isEqualTo(Cli.OK);
        assertThat(help.toString().replaceAll("\\s+", " ")).contains("or curves (the scaling curves")
                .contains("default: all but scale, large and curves");
    }

    @Test
    @Timeout(120)
    void aTinyRunGivesARowPerPointAndDrawsEveryCurve() {
        ScalingCurves.Settings tiny = new ScalingCurves.Settings(List.of(64, 64 << 10), List.of(1, 4), List.of(1, 2),
                1, 256 << 10, 64, 40, Duration.ofMillis(100), 2);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        RatioTable table = new RatioTable("t", "raw UDP");

        new ScalingCurves(tiny, new PrintStream(log, true, StandardCharsets.UTF_8), Watchdog.inert()).run(table);

        assertThat(table.rows()).extracting(Comparison::metric).containsExactly("WRITE 64 B (MB/s)",
                "WRITE 64 KiB (MB/s)", "ping-pong 64 B p50 (us)", // 64 KiB does not fit one UDP datagram
                "1 conn, 1 loop/side, 64 B echo (k msg/s)", "4 conn, 1 loop/side, 64 B echo (k msg/s)",
                "1 conn, 2 loop/side, 64 B echo (k msg/s)", "4 conn, 2 loop/side, 64 B echo (k msg/s)");
        for (Comparison c : table.rows()) { // an echo rate may read 0 when a loaded machine parks a loop all window
            assertThat(c.baseline()).as(c.metric() + " baseline").isFinite().isNotNegative();
            assertThat(c.ibex()).as(c.metric() + " Ibex").isFinite().isNotNegative();
        }
        for (Comparison c : table.rows().subList(0, 3)) { // sizes: every message was timed
            assertThat(c.baseline()).as(c.metric() + " baseline").isPositive();
            assertThat(c.ibex()).as(c.metric() + " Ibex").isPositive();
        }
        assertThat(table.notes()).anyMatch(n -> n.contains("retransmissions in the measured rounds"));
        assertThat(table.curves()).extracting(Curve::file).containsExactly("curves-size-bandwidth",
                "curves-size-latency", "curves-size-ratios", "curves-connections", "curves-connections-ratios");
        Curve connections = table.curves().get(3);
        assertThat(connections.series()).containsOnlyKeys("raw UDP, 1 thread per side", "Ibex, 1 loop per side",
                "raw UDP, 2 threads per side", "Ibex, 2 loops per side");
        assertThat(connections.series().values()).allSatisfy(points -> assertThat(points)
                .extracting(Curve.Point::x).containsExactly(1.0, 4.0));
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("curves 64 B WRITE round 1: raw")
                .contains("curves 4 connections 2 loop(s) round 1: raw");
    }
}
