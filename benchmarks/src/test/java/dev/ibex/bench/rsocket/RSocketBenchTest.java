package dev.ibex.bench.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Watchdog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link RSocketBench} end to end at a small size: it warms up within the passes it was given, says so in the table's
 * note, and measures every workload on both transports.
 */
class RSocketBenchTest {

    @Test
    void aSmallRunWarmsUpWithinItsPassesSaysHowAndMeasuresEveryWorkload() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RatioTable table = new RatioTable("rsocket", "TCP");
        new RSocketBench(new PrintStream(bytes, true, StandardCharsets.UTF_8), 1, 200, 400, 2, Watchdog.inert())
                .run(table);
        assertThat(table.rows()).extracting(Comparison::metric).contains(
                "RSocket Ibex/TCP rr 64 B, 1 in flight p50 (us)", "RSocket Ibex/TCP rr 16 KiB, 1 in flight p50 (us)",
                "RSocket Ibex/TCP rr 64 B, 64 in flight p50 (us)", "RSocket Ibex/TCP rr 16 KiB, 64 in flight p50 (us)");
        assertThat(table.rows()).allSatisfy(c -> assertThat(c.ibex()).as(c.metric()).isPositive());
        assertThat(table.notes()).anySatisfy(n -> assertThat(n).containsPattern("warm-up: [12] pass\\(es\\)"));
    }
}
