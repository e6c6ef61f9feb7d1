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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PingPongProbe probe = new PingPongProbe(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        int status = Cli.execute(probe, "--round-trips", "200", "--warmup-runs", "1", "--runs", "3",
                "--cm-port", "7496");
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isEqualTo(Cli.OK);
        assertThat(out).contains("measuring, pid " + ProcessHandle.current().pid());
        assertThat(out.lines().filter(l -> l.startsWith("run ")).count()).as(out).isEqualTo(3);
        assertThat(out).containsPattern("p50 median [0-9.]+ \\(min [0-9.]+\\) cpu/rt median [0-9.]+ \\(min [0-9.]+\\)");
    }

    @Test
    void creditsKeptOutOfMessagesIsAChoiceTheRunNames() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PingPongProbe probe = new PingPongProbe(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        int status = Cli.execute(probe, "--round-trips", "200", "--warmup-runs", "0", "--runs", "1",
                "--cm-port", "7497", "--credits-in-messages", "false");
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isEqualTo(Cli.OK);
        assertThat(out).contains("credits in messages false");
        assertThat(Cli.execute(new PingPongProbe(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)), "--credits-in-messages", "maybe")).as("not a boolean").isEqualTo(2);
    }
}
