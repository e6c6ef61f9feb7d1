package dev.ibex.bench.callback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.report.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link PingPongProbe}: a short run prints its process id before the measured runs, a line per run and the summary
 * line the A/B scripts of docs/benchmarks.md collect.
 */
class PingPongProbeTest {
    @Test
    void aShortRunPrintsItsPidItsRunsAndTheSummaryLine() {
        String out = ran("--round-trips", "200", "--warmup-runs", "1", "--runs", "3", "--cm-port", "7496");
        assertThat(out).contains("measuring, pid " + ProcessHandle.current().pid());
        assertThat(out.lines().filter(l -> l.startsWith("run ")).count()).as(out).isEqualTo(3);
        assertThat(out).containsPattern("p50 median [0-9.]+ \\(min [0-9.]+\\) cpu/rt median [0-9.]+ \\(min [0-9.]+\\)");
    }

    @Test
    void creditsKeptOutOfMessagesIsAChoiceTheRunNames() {
        String out = ran("--round-trips", "200", "--warmup-runs", "0", "--runs", "1", "--cm-port", "7497",
                "--credits-in-messages", "false");
        assertThat(out).contains("credits in messages false");
        assertThat(status("--credits-in-messages", "maybe")).as("not a boolean").isEqualTo(2);
    }

    /**
     * Sparse traffic: the client sends each request from a loop timer 300 us after the reply. Each run must go at the
     * pace of its timers: a direct loop's timed wait once ended at the kernel's scheduler ticks (8 ms here, HZ 250),
     * which made this run 8 ms a round trip (ReceiveSocket.PRECISE_NANOS), and before that a timer due within a
     * microsecond of a wait was lost until the next datagram and the run stalled.
     */
    @Test
    void aClientThatPausesOnALoopTimerGoesAtTheTimersPace() {
        String out = ran("--round-trips", "300", "--warmup-runs", "1", "--runs", "3", "--cm-port", "7498",
                "--pause-micros", "300");
        double[] wall = out.lines().filter(l -> l.startsWith("run "))
                .mapToDouble(l -> Double.parseDouble(l.replaceAll(".*wall per round trip ([0-9.]+) us.*", "$1")))
                .sorted().toArray();
        assertThat(wall).as(out).hasSize(3);
        assertThat(wall[0]).as("the pause is waited: " + out).isGreaterThanOrEqualTo(300);
        assertThat(wall[1]).as("the median run's wall time per round trip, 300 us of it the pause: " + out)
                .isLessThan(3_000);
        assertThat(status("--pause-micros", "-1")).as("negative").isEqualTo(2);
    }

    /** Runs the probe with {@code args}, requires it to succeed and returns what it printed. */
    private static String ran(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Cli.execute(new PingPongProbe(new PrintStream(bytes, true, StandardCharsets.UTF_8)), args);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isEqualTo(Cli.OK);
        return out;
    }

    /** The exit status of the probe run with {@code args} (2: the arguments were refused). */
    private static int status(String... args) {
        return Cli.execute(new PingPongProbe(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)),
                args);
    }
}
