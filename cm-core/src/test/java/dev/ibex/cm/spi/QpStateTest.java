package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code enum ibv_qp_state} values map to the constants and back. */
class QpStateTest {

    @Test
    void eachCodeGivesItsStateAndNoOtherCodeDoes() {
        for (QpState s : QpState.values()) {
            assertThat(QpState.ofCode(s.code())).isSameAs(s);
        }
        assertThat(QpState.ofCode(6)).isSameAs(QpState.ERR); // IBV_QPS_ERR
        assertThatThrownBy(() -> QpState.ofCode(7)).isInstanceOf(ArrayIndexOutOfBoundsException.class);
        assertThatThrownBy(() -> QpState.ofCode(-1)).isInstanceOf(ArrayIndexOutOfBoundsException.class);
    }
}
