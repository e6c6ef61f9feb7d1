package dev.ibex.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's main job, as {@code ./ibex demo} runs it, with small counts. */
class MainTest {
    @Test
    @Timeout(120)
    void demoRunsEveryStepOnSoftRoceAndReleasesEverything() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8),
                "--pings", "300", "--stream", "500", "--writes", "20", "--timeout", "30");
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isZero();
        assertThat(out).startsWith("Ibex providers on the class path:")
                .contains("Ibex demo: soft-roce over loopback")
                .contains("connect without token: REJECTED, server said \"unknown client\"")
                .contains("server said \"welcome to the echo service\"")
                .containsPattern("send/recv ping-pong, 300 x 64 B: round trip p50 [0-9.]+ us, p99 [0-9.]+ us")
                .containsPattern("echoed stream, 500 x 64 B: [0-9]+ messages/s")
                .containsPattern("RDMA WRITE, 20 x 65536 B: [0-9.]+ MiB/s")
                .contains("RDMA READ back: \"written by RDMA WRITE, read back by RDMA READ\"")
                .contains("compare-swap 42 -> 7, now 7")
                .contains("disconnected cleanly")
                .contains("closed both hosts: every CM id, QP, CQ, MR and PD released");
    }

    @Test
    void providersOnlyListsAndExits() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8), "--providers-only");
        assertThat(rc).isZero();
        assertThat(buf.toString(StandardCharsets.UTF_8)).startsWith("Ibex providers on the class path:")
                .contains("soft-roce").doesNotContain("Ibex demo");
    }

    @Test
    void badArgumentsExitNonZeroWithUsage() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int rc = Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8), "--pings", "many");
            assertThat(rc).isNotZero();
        } finally {
            System.setErr(saved);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--pings");
    }
}
