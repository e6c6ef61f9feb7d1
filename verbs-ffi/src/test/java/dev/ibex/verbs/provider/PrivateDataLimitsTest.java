package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.spi.PortSpace;
import org.junit.jupiter.api.Test;

class PrivateDataLimitsTest {

    @Test
    void theLimitsOfTheIbCmMessagesAreEnforced() {
        assertThatCode(() -> PrivateDataLimits.checkConnect(PortSpace.TCP, 56)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkConnect(PortSpace.TCP, 57))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("private data of 57 bytes exceeds the 56-byte limit of rdma_connect on an RDMA_PS_TCP id");
        assertThatCode(() -> PrivateDataLimits.checkConnect(PortSpace.UDP, 180)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkConnect(PortSpace.UDP, 181)).isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> PrivateDataLimits.checkAccept(PortSpace.TCP, 196)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkAccept(PortSpace.TCP, 197)).isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> PrivateDataLimits.checkAccept(PortSpace.UDP, 136)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkAccept(PortSpace.UDP, 137)).isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> PrivateDataLimits.checkReject(PortSpace.TCP, 148)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkReject(PortSpace.TCP, 149)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrivateDataLimits.checkReject(PortSpace.UDP, 137)).isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> PrivateDataLimits.checkConnect(PortSpace.IB, 56)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkConnect(PortSpace.IPOIB, 181)).isInstanceOf(IllegalArgumentException.class);
    }
}
