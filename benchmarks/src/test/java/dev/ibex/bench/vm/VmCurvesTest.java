package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.perftest.PerftestResult;
import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.Curve;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Watchdog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rdma-core scaling curves' harness without the VM: the grid issue 18 asks for, the C tool each point runs (with
 * which arguments), and a tiny run end to end on soft-roce with canned C figures — a row per point, every curve drawn
 * from measured points (not their speed, which only the VM gives).
 */
class VmCurvesTest {

    @Test
    void bothSettingsMeasureTheWholeGridOfTheIssue() {
        for (VmCurves.Settings s : List.of(VmCurves.Settings.FULL, VmCurves.Settings.QUICK)) {
            assertThat(s.sizes()).first().isEqualTo(2); // 2 B ...
            assertThat(s.sizes()).last().isEqualTo(1 << 20); // ... to 1 MiB
            assertThat(s.connections()).containsExactly(1, 4, 16, 64, 256);
            assertThat(s.messages(1 << 20)).isEqualTo(s.minMessages());
            assertThat(s.messages(2)).isEqualTo(s.maxMessages());
        }
        assertThat(VmBench.WORKLOADS).contains("curves");
        assertThat(Curve.sizeLabel(2)).isEqualTo("2 B");
        assertThat(Curve.sizeLabel(256 << 10)).isEqualTo("256 KiB");
    }

    @Test
    @Timeout(180)
    void aTinyRunAsksTheMatchingCToolForEveryPointAndDrawsEveryCurve() {
        VmCurves.Settings tiny = new VmCurves.Settings(List.of(64, 64 << 10), List.of(1, 2), 256 << 10, 8, 40,
                Duration.ofMillis(100), 100);
        List<String> asked = new ArrayList<>();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        RatioTable table = new RatioTable("t", "C tool");
        int[] port = {7640};

        new VmCurves(tiny, 1, new PrintStream(log, true, StandardCharsets.UTF_8), Watchdog.inert(),
                p -> LoopbackHosts.softRoce(port[0]++), p -> LoopbackHosts.softRoce(port[0]++), (tool, args) -> {
                    asked.add(tool + " " + String.join(" ", args));
                    return new PerftestResult(List.of("t_typical[usec]", "MsgRate[Mpps]"), List.of(10.0, 0.5));
                }).run(table);

        assertThat(asked).containsExactly("ib_send_lat -s 64 -n 40", "ib_write_bw -s 64 -n 40 -t 128",
                "ib_send_lat -s 65536 -n 8", "ib_write_bw -s 65536 -n 8 -t 32",
                "ib_send_bw -b -q 1 -s 64 -t 4 -r 16 -n 100", "ib_send_bw -b -q 2 -s 64 -t 4 -r 16 -n 100");
        assertThat(table.rows()).extracting(Comparison::metric).containsExactly(
                "ping-pong 64 B one-way typical (us)", "ping-pong 64 KiB one-way typical (us)",
                "WRITE 64 B (MB/s)", "WRITE 64 KiB (MB/s)",
                "1 conn, 64 B both ways (k msg/s)", "2 conn, 64 B both ways (k msg/s)");
        assertThat(table.rows().get(0).baseline()).isEqualTo(10.0);
        assertThat(table.rows().get(2).baseline()).isEqualTo(0.5 * 64); // MsgRate (Mpps) x size = MB/s
        assertThat(table.rows().get(4).baseline()).isEqualTo(500.0); // 0.5 Mpps = 500 k msg/s
        for (Comparison c : table.rows()) { // an echo rate may read 0 when a loaded machine parks a loop all window
            assertThat(c.ibex()).as(c.metric() + " Ibex").isFinite().isNotNegative();
        }
        assertThat(table.curves()).extracting(Curve::file).containsExactly("vm-curves-size-latency",
                "vm-curves-size-bandwidth", "vm-curves-size-ratios", "vm-curves-connections",
                "vm-curves-connections-ratios");
        assertThat(table.curves()).allSatisfy(c -> assertThat(c.series().values()).allSatisfy(points ->
                assertThat(points).isNotEmpty()));
    }

    @Test
    @Timeout(180)
    void aPointThatFailsBecomesANoteAndTheOthersStillRun() {
        VmCurves.Settings tiny = new VmCurves.Settings(List.of(64), List.of(1, 2), 64 << 10, 8, 20,
                Duration.ofMillis(100), 100);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        RatioTable table = new RatioTable("t", "C tool");
        int[] port = {7660};

        new VmCurves(tiny, 1, new PrintStream(log, true, StandardCharsets.UTF_8), Watchdog.inert(),
                p -> LoopbackHosts.softRoce(port[0]++), p -> LoopbackHosts.softRoce(port[0]++), (tool, args) -> {
                    if (tool.equals("ib_write_bw") || List.of(args).contains("1")) { // a 64 B WRITE, and -q 1
                        throw new IllegalStateException("ib_send_bw exited with 139:\nCouldn't create a receiver CQ");
                    }
                    return new PerftestResult(List.of("t_typical[usec]", "MsgRate[Mpps]"), List.of(10.0, 0.5));
                }).run(table);

        assertThat(table.rows()).extracting(Comparison::metric).containsExactly(
                "ping-pong 64 B one-way typical (us)", "2 conn, 64 B both ways (k msg/s)");
        assertThat(table.notes()).contains(
                "curves: 64 B WRITE FAILED, no point: IllegalStateException: ib_send_bw exited with 139:",
                "curves: 1 connections FAILED, no point: IllegalStateException: ib_send_bw exited with 139:");
    }
}
