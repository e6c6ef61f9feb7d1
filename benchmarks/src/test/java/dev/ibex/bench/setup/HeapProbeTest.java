package dev.ibex.bench.setup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.report.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link HeapProbe}: open connections show as live heap per end, with the classes that hold it. */
class HeapProbeTest {
    @Test
    void openConnectionsShowAsHeapPerEndWithTheClassesThatHoldIt() {
        String out = probe("--connections", "50", "--top", "5", "--cm-port", "7489");
        Matcher m = Pattern.compile("50 connections open \\(100 ends\\): [0-9.]+ MB more live heap, ([0-9]+) B per end")
                .matcher(out);
        assertThat(m.find()).as(out).isTrue();
        // a connection end is some KB of objects (QP, send queue, CM id); none would be a probe that sees nothing
        assertThat(Long.parseLong(m.group(1))).as(out).isBetween(1_000L, 200_000L);
        assertThat(out.lines().filter(l -> l.contains("B per end") && l.contains("instances per end")).count()).as(out)
                .isEqualTo(5);
        assertThat(out).containsPattern("young collection: -?[0-9]+ ms with them open and new, -?[0-9]+ ms before");
    }

    @Test
    void badCountsAreRefused() {
        assertThat(Cli.execute(new HeapProbe(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)), "--connections", "0")).isEqualTo(2);
    }

    private static String probe(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Cli.execute(new HeapProbe(new PrintStream(bytes, true, StandardCharsets.UTF_8)), args);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isEqualTo(Cli.OK);
        return out;
    }
}
