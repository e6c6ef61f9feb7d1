package dev.ibex.softroce.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** 24-bit PSN arithmetic, rxe psn_compare semantics, across the wrap. */
class PsnTest {
    @Test
    void wraps() {
        assertThat(Psn.next(0xFFFFFF)).isZero();
        assertThat(Psn.add(0xFFFFFE, 5)).isEqualTo(3);
        assertThat(Psn.add(2, -5)).isEqualTo(0xFFFFFD);
    }

    @Test
    void comparesAcrossTheWrap() {
        assertThat(Psn.compare(0, 0xFFFFFF)).isPositive();
        assertThat(Psn.compare(0xFFFFFF, 0)).isNegative();
        assertThat(Psn.compare(5, 5)).isZero();
        assertThat(Psn.compare(0x7FFFFF, 0)).isPositive();   // 2^23 - 1 ahead: after
        assertThat(Psn.compare(0x800000, 0)).isNegative();   // 2^23 ahead: counts as before, like rxe
        assertThat(Psn.diff(1, 0xFFFFFF)).isEqualTo(2);
        assertThat(Psn.diff(0xFFFFFF, 1)).isEqualTo(-2);
        assertThat(Psn.diff(100, 40)).isEqualTo(60);
    }

    @Test
    void validates() {
        assertThat(Psn.isValid(0xFFFFFF)).isTrue();
        assertThat(Psn.isValid(0x1000000)).isFalse();
        assertThat(Psn.isValid(-1)).isFalse();
        assertThat(Psn.check(7)).isEqualTo(7);
        assertThatThrownBy(() -> Psn.check(1 << 24)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void padding() {
        assertThat(Padding.count(0)).isZero();
        assertThat(Padding.count(1)).isEqualTo(3);
        assertThat(Padding.count(2)).isEqualTo(2);
        assertThat(Padding.count(3)).isEqualTo(1);
        assertThat(Padding.count(4096)).isZero();
    }
}
