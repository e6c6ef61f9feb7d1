package dev.ibex.bench.setup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.report.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link SetupProbe}: short runs print the process id before the measured runs, a line per run and the summary line
 * the A/B scripts of docs/benchmarks.md collect, one at a time and with connects in flight.
 */
class SetupProbeTest {
    @Test
    void sequentialRunsPrintTheirPidTheirRunsAndTheSummaryLine() {
        String out = probe("--connections", "20", "--warmup-runs", "1", "--runs", "3", "--cm-port", "7486");
        assertThat(out).contains("measuring, pid " + ProcessHandle.current().pid() + ", 20 connections per run, 1 in");
        assertThat(out.lines().filter(l -> l.startsWith("run ") && l.contains("p50 us")).count()).as(out)
                .isEqualTo(3);
        assertThat(out).containsPattern("p50 median [0-9.]+ cpu/conn median [0-9.]+ \\(min [0-9.]+\\)");
    }

    @Test
    void concurrentRunsReportARate() {
        String out = probe("--connections", "40", "--in-flight", "8", "--warmup-runs", "0", "--runs", "1",
                "--cm-port", "7487");
        assertThat(out).containsPattern("run 1 of 1: conn/s [0-9.]+");
        assertThat(out).containsPattern("rate median [0-9.]+ cpu/conn");
    }

    @Test
    void badCountsAreRefused() {
        assertThat(Cli.execute(new SetupProbe(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)), "--in-flight", "0")).isEqualTo(2);
    }

    private static String probe(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Cli.execute(new SetupProbe(new PrintStream(bytes, true, StandardCharsets.UTF_8)), args);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isEqualTo(Cli.OK);
        return out;
    }
}
