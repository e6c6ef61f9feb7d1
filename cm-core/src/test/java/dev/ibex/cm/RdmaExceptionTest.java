package dev.ibex.cm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RdmaExceptionTest {

    @Test
    void messageNamesVerbErrnoAndAdvice() {
        RdmaException e = new RdmaException("rdma_create_event_channel", 19,
                "the kernel has no RDMA support; use the soft-roce provider or load rdma_rxe");
        assertThat(e.getMessage()).isEqualTo("rdma_create_event_channel failed: ENODEV (No such device); "
                + "the kernel has no RDMA support; use the soft-roce provider or load rdma_rxe");
        assertThat(e.errno()).isEqualTo(Errno.ENODEV);
        assertThat(e.errnoValue()).isEqualTo(19);
        assertThat(e.verb()).isEqualTo("rdma_create_event_channel");
    }

    @Test
    void kernelStyleNegativeErrnoIsNormalised() {
        RdmaException e = new RdmaException("rdma_resolve_addr", -110, "");
        assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
        assertThat(e.errnoValue()).isEqualTo(110);
        assertThat(e.getMessage()).isEqualTo("rdma_resolve_addr failed: ETIMEDOUT (Connection timed out)");
    }

    @Test
    void unknownErrnoKeepsTheNumber() {
        RdmaException e = new RdmaException("x", 4095, null);
        assertThat(e.errno()).isEqualTo(Errno.EUNKNOWN);
        assertThat(e.getMessage()).contains("errno=4095");
    }

    @Test
    void noErrno() {
        RdmaException e = new RdmaException("ibv_open_device", 0, "device vanished");
        assertThat(e.errno()).isNull();
        assertThat(e.getMessage()).isEqualTo("ibv_open_device failed; device vanished");
    }

    @Test
    void errnoTableMatchesLinuxNumbers() {
        assertThat(Errno.of(38)).isEqualTo(Errno.ENOSYS);
        assertThat(Errno.of(11)).isEqualTo(Errno.EAGAIN);
        assertThat(Errno.of(12)).isEqualTo(Errno.ENOMEM);
        assertThat(Errno.of(22)).isEqualTo(Errno.EINVAL);
        assertThat(Errno.ENOSYS.description()).isEqualTo("Function not implemented");
    }
}
