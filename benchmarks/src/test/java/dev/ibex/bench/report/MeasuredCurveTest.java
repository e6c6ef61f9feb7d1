package dev.ibex.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A curve measured in rounds: a row per point with medians and the ratio range, the series in first-round order. */
class MeasuredCurveTest {

    @Test
    void eachPointIsTheMedianOfItsRoundsInTheOrderOfTheFirstRound() {
        MeasuredCurve c = new MeasuredCurve();
        for (double[] round : new double[][] {{100, 50}, {120, 30}, {80, 70}}) { // medians: 100 and 50
            c.add(4096, "WRITE 4 KiB (MB/s)", round[0], round[1]);
            c.add(64, "WRITE 64 B (MB/s)", round[0] / 10, round[1] / 10);
        }

        List<Comparison> rows = c.rows();
        assertThat(rows).extracting(Comparison::metric).containsExactly("WRITE 4 KiB (MB/s)", "WRITE 64 B (MB/s)");
        assertThat(rows.get(0).baseline()).isEqualTo(100);
        assertThat(rows.get(0).ibex()).isEqualTo(50);
        assertThat(rows.get(0).ratio()).isEqualTo(0.5);
        assertThat(rows.get(0).spread()).isEqualTo("3 rounds, ratio 0.25-0.88");
        assertThat(rows.get(0).target().isSet()).as("a curve's point is information, not a target").isFalse();
        assertThat(c.baseline()).containsExactly(new Curve.Point(4096, 100), new Curve.Point(64, 10));
        assertThat(c.ibex()).containsExactly(new Curve.Point(4096, 50), new Curve.Point(64, 5));
        assertThat(c.ratios()).hasSize(2).allSatisfy(p -> assertThat(p.y()).isCloseTo(0.5, within(1e-12)));
    }

    @Test
    void anEmptyCurveHasNoRowsAndNoPoints() {
        MeasuredCurve c = new MeasuredCurve();

        assertThat(c.isEmpty()).isTrue();
        assertThat(c.rows()).isEmpty();
        assertThat(c.ratios()).isEmpty();
        assertThat(c.add(1, "one", 2, 3).isEmpty()).isFalse();
    }
}
