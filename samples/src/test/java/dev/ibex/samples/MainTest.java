package dev.ibex.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's main job, the tour {@code ./ibex demo} runs, with small counts. */
class MainTest {
    @Test
    @Timeout(120)
    void theTourRunsEverySectionOnSoftRoceAndReleasesEverything() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8),
                "--pings", "300", "--stream", "500", "--writes", "20", "--requests", "200", "--messages", "3000",
                "--rate", "2000",
                "--timeout", "30");
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isZero();
        assertThat(out).startsWith("Ibex providers on the class path:")
                .contains("[1/4] echo: a reactive echo over RC")
                .contains("soft-roce over loopback, server 127.0.0.2, client 127.0.0.3")
                .contains("connect without token: REJECTED, server said \"unknown client\"")
                .contains("server said \"welcome to the echo service\"")
                .containsPattern("send/recv ping-pong, 300 x 64 B: round trip p50 [0-9.]+ us, p99 [0-9.]+ us")
                .containsPattern("echoed stream, 500 x 64 B: [0-9]+ messages/s")
                .containsPattern("RDMA WRITE, 20 x 65536 B: [0-9.]+ MiB/s")
                .contains("RDMA READ back: \"written by RDMA WRITE, read back by RDMA READ\"")
                .contains("compare-swap 42 -> 7, now 7")
                .contains("disconnected cleanly")
                .contains("closed both hosts: every CM id, QP, CQ, MR and PD released")
                .contains("[2/4] rsocket: RSocket over Ibex")
                .contains("PUT color=blue, GET color -> blue").contains("WATCH color saw [blue, red, green]")
                .contains("200 GETs one at a time: round trip p50 ")
                .contains("[3/4] pubsub: UD multicast publish/subscribe")
                .containsPattern("published 3000 x 64 B in [0-9.]+ s: [0-9]+ messages/s")
                // counts that add up are the section's own check; exact loss accounting: PubSubSampleTest
                .containsPattern("subscriber 1: received \\d+, lost \\d+, out of order \\d+, duplicates 0; latency p50")
                .containsPattern("subscriber 2: received \\d+, lost \\d+, .*left at #\\d+ and re-joined in [0-9.]+ ms "
                        + "\\(missed \\d+ while away\\)")
                .contains("closed all four hosts: every membership, QP and buffer released")
                .contains("[4/4] apm: Automatic path migration")
                .contains("PATH_MIG (client): now 127.0.0.13 -> 127.0.0.12 (port 2)")
                .contains("PATH_MIG (server): now 127.0.0.2 -> 127.0.0.3 (port 1)")
                .containsPattern("counts: sent (\\d+), received \\1, lost 0, duplicated 0")
                .containsPattern("tour done in [0-9.]+ s: echo, rsocket, pubsub, apm");
    }

    @Test
    @Timeout(120)
    void onlyRunsOneSectionAndListNamesThemAll() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8), "--only", "pubsub", "--messages", "600",
                "--rate", "5000");
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isZero();
        assertThat(out).contains("[1/1] pubsub:").doesNotContain("echo:").doesNotContain("rsocket:")
                .contains("tour done");

        buf.reset();
        assertThat(Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8), "--list")).isZero();
        assertThat(buf.toString(StandardCharsets.UTF_8)).containsPattern("(?m)^echo +a reactive echo")
                .containsPattern("(?m)^rsocket +RSocket over Ibex").containsPattern("(?m)^pubsub +UD multicast")
                .containsPattern("(?m)^apm +Automatic path migration");
    }

    @Test
    void anUnknownSectionIsRefusedWithTheNames() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8), "--only", "nope")).isNotZero();
        } finally {
            System.setErr(saved);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no section \"nope\"").contains("echo")
                .contains("rsocket").contains("pubsub");
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
