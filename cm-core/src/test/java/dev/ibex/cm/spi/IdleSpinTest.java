package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IdleSpinTest {

    @Test
    void noneAndFixedNeverChangeTheirWindow() {
        IdleSpin none = IdleSpin.none();
        IdleSpin fixed = IdleSpin.fixed(5_000);
        for (IdleSpin s : new IdleSpin[] {none, fixed}) {
            s.blockedFor(100);
            s.blockedFor(1_000_000_000);
            s.timedOut();
            assertThat(s.isAdaptive()).isFalse();
        }
        assertThat(none.window()).isZero();
        assertThat(fixed.window()).isEqualTo(5_000);
    }

    @Test
    void anAdaptiveWindowGrowsWhileWaitsEndWithinItsMaximumAndStopsThere() {
        IdleSpin s = IdleSpin.adaptive(32_000);
        assertThat(s.window()).as("it starts by blocking at once").isZero();
        long[] expected = {2_000, 4_000, 8_000, 16_000, 32_000, 32_000};
        for (long w : expected) {
            s.blockedFor(20_000); // a wait a longer spin would have caught
            assertThat(s.window()).isEqualTo(w);
        }
        s.blockedFor(32_000);
        assertThat(s.window()).as("a wait of exactly the maximum counts as caught").isEqualTo(32_000);
    }

    @Test
    void anAdaptiveWindowHalvesOnLongWaitsAndTimeoutsThenCloses() {
        IdleSpin s = IdleSpin.adaptive(32_000);
        for (int i = 0; i < 5; i++) {
            s.blockedFor(1_000);
        }
        assertThat(s.window()).isEqualTo(32_000);
        s.blockedFor(32_001); // sparse traffic: the spin was in vain
        assertThat(s.window()).isEqualTo(16_000);
        s.timedOut();
        assertThat(s.window()).isEqualTo(8_000);
        s.blockedFor(1_000_000);
        s.timedOut();
        assertThat(s.window()).isEqualTo(IdleSpin.GROW_START_NANOS);
        s.timedOut();
        assertThat(s.window()).as("below the starting window it closes").isZero();
        s.timedOut();
        assertThat(s.window()).isZero();
    }

    @Test
    void aMaximumBelowTheStartingWindowIsStillTheLimit() {
        IdleSpin s = IdleSpin.adaptive(500);
        s.blockedFor(400);
        assertThat(s.window()).isEqualTo(500);
        s.blockedFor(600);
        assertThat(s.window()).isZero();
        IdleSpin off = IdleSpin.adaptive(0);
        off.blockedFor(0);
        assertThat(off.window()).as("a maximum of 0 never spins").isZero();
    }

    @Test
    void negativeTimesAreRefused() {
        assertThatThrownBy(() -> IdleSpin.fixed(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> IdleSpin.adaptive(-5)).isInstanceOf(IllegalArgumentException.class);
    }
}
