package dev.ibex.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RatioTableTest {

    @Test
    void latencyRowPassesAtOrBelowItsBoundAndMissesAbove() {
        Rounds ok = new Rounds("p50 (us)", Target.atMost(1.3));
        ok.add(10, 13);
        Rounds slow = new Rounds("p99 (us)", Target.atMost(1.3));
        slow.add(10, 26);

        assertThat(ok.comparison().verdict()).isEqualTo("PASS");
        assertThat(slow.comparison().ratio()).isEqualTo(2.6);
        assertThat(slow.comparison().verdict()).isEqualTo("MISS by 100%");
    }

    @Test
    void bandwidthRowNeedsAtLeastItsBound() {
        Rounds bw = new Rounds("MB/s", Target.atLeast(0.7));
        bw.add(1000, 690);
        assertThat(bw.comparison().met()).isFalse();
        bw.add(1000, 900);
        bw.add(1000, 800);
        assertThat(bw.comparison().ibex()).isEqualTo(800);
        assertThat(bw.comparison().verdict()).isEqualTo("PASS");
        assertThat(bw.comparison().spread()).isEqualTo("3 rounds, ratio 0.69-0.90");
    }

    @Test
    void absoluteTargetJudgesIbexFigureNotTheRatio() {
        Comparison zero = new Comparison("alloc (B/op)", Double.NaN, 0.02, Target.figureAtMost(1), "");
        Comparison alloc = new Comparison("alloc (B/op)", Double.NaN, 48, Target.figureAtMost(1), "");
        assertThat(zero.verdict()).isEqualTo("PASS");
        assertThat(alloc.verdict()).isEqualTo("MISS by 4700%");
    }

    @Test
    void tableIsMetOnlyWhenEveryTargetedRowIsAndPrintsVerdictsAndNotes() {
        RatioTable table = new RatioTable("title", "raw UDP")
                .add(new Comparison("info row", 1, 100, Target.none(), ""))
                .add(new Comparison("latency", 10, 12, Target.atMost(1.3), "4 rounds"))
                .note("how it was measured");
        assertThat(table.allMet()).isTrue();
        table.add(new Comparison("bandwidth", 1000, 500, Target.atLeast(0.7), ""));
        assertThat(table.allMet()).isFalse();

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        table.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("== title", "raw UDP", "how it was measured")
                .containsPattern("latency +10\\.00 +12\\.00 +1\\.20 +<= 1\\.30 +PASS +4 rounds")
                .containsPattern("bandwidth +1000 +500\\.00 +0\\.50 +>= 0\\.70 +MISS by 29%")
                .containsPattern("info row .* info");
    }
}
