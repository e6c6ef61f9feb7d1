package dev.ibex.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The result tables of perftest and cmtime as they printed them in the Soft-RoCE VM (rxe0, qemu TCG). */
class ToolOutputTest {

    @Test
    void latencyRowWithNanStdevIsReadAndUsable() {
        PerftestResult r = PerftestResult.parse(resource("ib_send_lat-nan-stdev.txt"));

        assertThat(r.columns()).containsExactly("#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
                "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
        assertThat(r.get("t_typical")).isEqualTo(69.24);
        assertThat(r.get("99%")).isEqualTo(55748.36);
        assertThat(r.get("t_stdev")).isNaN();
        assertThat(r.measured()).isTrue();
    }

    @Test
    void bandwidthRowIsReadDespiteTheTrailingCorrelationWarning() {
        PerftestResult r = PerftestResult.parse(resource("ib_send_bw.txt"));

        assertThat(r.get("#bytes")).isEqualTo(64);
        assertThat(r.get("BW average")).isEqualTo(0.25);
        assertThat(r.get("MsgRate")).isEqualTo(0.004039);
        assertThat(r.measured()).isTrue();
    }

    @Test
    void zeroRateIsNotAMeasurement() {
        PerftestResult r = PerftestResult.parse(resource("ib_write_bw-zero.txt"));

        assertThat(r.get("#iterations")).isEqualTo(200);
        assertThat(r.get("MsgRate")).isZero();
        assertThat(r.measured()).isFalse();
    }

    @Test
    void infiniteLatencyIsReadButIsNotAMeasurement() {
        String out = resource("ib_send_lat-nan-stdev.txt").replace("69.24", "inf").replace("2744.58", "-inf");
        PerftestResult r = PerftestResult.parse(out);

        assertThat(r.get("t_typical")).isInfinite();
        assertThat(r.get("t_avg")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(r.measured()).isFalse();
    }

    @Test
    void outputWithoutResultRowIsRejected() {
        assertThatThrownBy(() -> PerftestResult.parse(" Couldn't connect to 169.254.77.1:18515\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no perftest result row");
    }

    @Test
    void cmtimeSetupIsTheSumOfItsStepsUpToConnect() {
        CmtimeResult r = CmtimeResult.parse(resource("cmtime.txt"));

        assertThat(r.totalMillis()).containsKeys("create id", "bind addr", "resolve addr", "resolve route",
                "create qp", "connect", "disconnect", "destroy");
        assertThat(r.sum(CmtimeResult.SETUP)).isCloseTo(1.40 + 20.06 + 31.23 + 87.16 + 555.25,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThatThrownBy(() -> r.sum("reject")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aColumnWiderThanItsFieldStillGivesTheStepsTotal() {
        // cmtime's %11.2f columns run together when a value needs 12 characters: its "min us" of a step that no
        // connection timed at both ends is 999999999.00
        String merged = resource("cmtime.txt").replace("connect      :      555.25     511.89  117328.00   27762.35",
                "connect      :      555.25       0.00999999999.00   27762.35");

        CmtimeResult r = CmtimeResult.parse(merged);

        assertThat(r.sum("connect")).isEqualTo(555.25);
        assertThat(r.totalMillis()).hasSize(8);
        String garbled = resource("cmtime.txt").replace("555.25     511.89", "555.25     -11.89");
        assertThatThrownBy(() -> CmtimeResult.parse(garbled)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a cmtime row not understood: 'connect      :      555.25     -11.89");
    }

    @Test
    void repeatedRunsGiveOneTableEachInOrder() {
        String one = resource("cmtime.txt");
        String two = one.replace("555.25", "111.50");

        java.util.List<CmtimeResult> tables = CmtimeResult.parseAll("round output\n" + one + "creating id\n" + two);

        assertThat(tables).hasSize(2);
        assertThat(tables.get(0).sum("connect")).isEqualTo(555.25);
        assertThat(tables.get(1).sum("connect")).isEqualTo(111.50);
        assertThatThrownBy(() -> CmtimeResult.parseAll("no table\n")).isInstanceOf(IllegalArgumentException.class);
    }

    private static String resource(String name) {
        try (InputStream in = ToolOutputTest.class.getResourceAsStream("/perftest/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
