package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Runs on the host: reading cmtime's table (as rdma-core 44's cmtime and the Java port print it). */
class CmtimeTableTest {
    private static final String C_OUTPUT = """
            creating id
            resolving address
            connecting
            step              total ms     max ms     min us  us / conn
            create id    :        2.15       0.28      17.00      42.94
            resolve addr :       76.17      73.47   72863.00    1523.30
            resolve route:       78.62      67.78    8855.00    1572.50
            create qp    :       47.24      15.24     281.00     944.82
            connect      :      681.30     660.29   99147.00   13626.10
            disconnect   :     1077.80     558.55   44274.00   21555.94
            destroy      :        4.05       0.82      33.00      81.04
            """;

    @Test
    void readsEveryRowsTotal() {
        CmtimeTable t = CmtimeTable.parse(C_OUTPUT);
        assertThat(t.totalMillis()).containsOnlyKeys("create id", "resolve addr", "resolve route", "create qp",
                "connect", "disconnect", "destroy");
        assertThat(t.totalMillis().get("resolve route")).isEqualTo(78.62);
        assertThat(t.sum("resolve addr", "resolve route", "create qp", "connect")).isCloseTo(883.33,
                org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void linesBeforeTheHeaderAndMissingRowsAreNotRows() {
        CmtimeTable t = CmtimeTable.parse(
                "event: RDMA_CM_EVENT_REJECTED, error: 8\nconnect      :  1.00 2.00 3.00 4.00\n");
        assertThat(t.totalMillis()).isEmpty();
        assertThatThrownBy(() -> t.sum("connect")).isInstanceOf(IllegalArgumentException.class);
    }
}
