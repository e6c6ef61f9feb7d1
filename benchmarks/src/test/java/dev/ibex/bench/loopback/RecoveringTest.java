package dev.ibex.bench.loopback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveringTest {
    final List<Workload> opened = new ArrayList<>();

    /** A workload whose first {@code stallsLeft} runs (over all instances) time out. */
    final class Workload implements AutoCloseable {
        boolean closed;

        String run(int[] stallsLeft) {
            if (stallsLeft[0]-- > 0) {
                throw new IllegalStateException("ping-pong: no outcome after 15 s\n  details");
            }
            return "figures of workload " + opened.indexOf(this);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    Recovering<Workload> recovering(int maxStalls) {
        return new Recovering<>("w", () -> {
            Workload w = new Workload();
            opened.add(w);
            return w;
        }, maxStalls, new PrintStream(OutputStream.nullOutputStream()));
    }

    @Test
    void aStalledRunIsRepeatedOnAFreshWorkloadAndCounted() {
        int[] stalls = {2};
        try (Recovering<Workload> r = recovering(3)) {
            String figures = r.run(w -> w.run(stalls));
            assertThat(figures).isEqualTo("figures of workload 2");
            assertThat(r.stalls()).isEqualTo(2);
            assertThat(opened).hasSize(3);
            assertThat(opened.get(0).closed).isTrue();
            assertThat(opened.get(1).closed).isTrue();
            assertThat(opened.get(2).closed).isFalse();
        }
        assertThat(opened.get(2).closed).isTrue();
    }

    @Test
    void givesUpAfterMaxStalls() {
        int[] stalls = {5};
        try (Recovering<Workload> r = recovering(1)) {
            assertThatThrownBy(() -> r.run(w -> w.run(stalls))).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("ping-pong: no outcome");
            assertThat(r.stalls()).isEqualTo(2);
        }
    }
}
