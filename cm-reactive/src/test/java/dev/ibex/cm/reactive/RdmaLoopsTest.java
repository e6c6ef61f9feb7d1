package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.loop.LoopOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The default loop group's size follows {@code -Dibex.reactive.loops}, like reactor-netty's ioWorkerCount. */
class RdmaLoopsTest {

    @AfterEach
    void restore() {
        RdmaLoops.disposeGlobal();
        System.clearProperty(RdmaLoops.LOOPS_PROPERTY);
        System.clearProperty("ibex.provider");
    }

    @Test
    void thePropertySetsTheNumberOfDefaultLoops() {
        System.setProperty("ibex.provider", "fake"); // testkit's in-memory provider: no sockets, no device
        System.setProperty(RdmaLoops.LOOPS_PROPERTY, "3");
        assertThat(RdmaLoops.global().loops()).hasSize(3);
    }

    @Test
    void unsetMeansOneLoopPerProcessor() {
        assertThat(RdmaLoops.options(null).loops()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(RdmaLoops.options(" 2 ").loops()).isEqualTo(2);
        assertThat(RdmaLoops.options(null)).isSameAs(LoopOptions.DEFAULT);
    }

    @Test
    void aValueThatIsNotAPositiveIntegerIsRefusedNamingTheProperty() {
        for (String bad : new String[] {"0", "-1", "four"}) {
            assertThatThrownBy(() -> RdmaLoops.options(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-Dibex.reactive.loops=" + bad).hasMessageContaining("positive integer");
        }
        System.setProperty("ibex.provider", "fake");
        System.setProperty(RdmaLoops.LOOPS_PROPERTY, "none");
        assertThatThrownBy(RdmaLoops::global).isInstanceOf(IllegalArgumentException.class);
    }
}
