package dev.ibex.bench.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A representative slice of the fault matrix on soft-roce (every workload, every kind of fault, the kill -9 cells
 * with the server in a JVM of its own), each cell judged against {@link Expectation#of}. The soak benchmark runs every
 * cell with more traffic over several seeds ({@code ./ibex bench --only matrix}); its table is docs/fault-matrix.md.
 */
class FaultMatrixTest {
    private static final int UNITS = 200;

    static Stream<Arguments> slice() {
        return Stream.of(
                cell(Workload.RC_SEND, Fault.DROP_10), cell(Workload.RC_SEND, Fault.REORDER),
                cell(Workload.RC_SEND, Fault.DUPLICATE), cell(Workload.RC_SEND, Fault.PATH_DOWN_UP),
                cell(Workload.RC_SEND, Fault.PATH_DOWN), cell(Workload.RC_SEND, Fault.KILL_PEER),
                cell(Workload.RC_SEND, Fault.CLOSE_OTHER_SIDE), cell(Workload.RC_SEND, Fault.DEVICE_CLOSED),
                cell(Workload.RDMA_WRITE, Fault.REORDER), cell(Workload.RDMA_WRITE, Fault.PATH_DOWN),
                cell(Workload.RDMA_READ, Fault.DROP_1), cell(Workload.RDMA_READ, Fault.DELAY),
                cell(Workload.ATOMIC, Fault.DROP_10), cell(Workload.ATOMIC, Fault.DUPLICATE),
                cell(Workload.ATOMIC, Fault.KILL_PEER),
                cell(Workload.UD, Fault.DROP_10), cell(Workload.UD, Fault.DUPLICATE), cell(Workload.UD, Fault.PATH_DOWN),
                cell(Workload.MULTICAST, Fault.DROP_1), cell(Workload.MULTICAST, Fault.KILL_PEER));
    }

    private static Arguments cell(Workload w, Fault f) {
        return Arguments.of(w, f);
    }

    @ParameterizedTest(name = "{0} × {1}")
    @MethodSource("slice")
    void theCellShowsItsExpectedOutcome(Workload w, Fault f) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<FaultMatrix.Cell> cells = FaultMatrix.run(FaultMatrix.Plan.full(20261126L, UNITS).only(List.of(w),
                List.of(f)), new PrintStream(log, true, StandardCharsets.UTF_8));

        FaultMatrix.Cell c = cells.getFirst();
        assertThat(c.pass()).as("expected %s, measured %s (%s)%n%s", c.expected().describe(), c.measured(), c.detail(),
                log.toString(StandardCharsets.UTF_8)).isTrue();
    }
}
