package dev.ibex.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RejectReasonTest {
    @Test
    void everyReasonRoundTripsWithItsDetailAndSurvivesTheProvidersZeroPadding() {
        for (RejectReason r : RejectReason.values()) {
            byte[] data = r.encode("why " + r);
            assertThat(RejectReason.of(data)).isEqualTo(r);
            byte[] padded = Arrays.copyOf(data, 148);
            assertThat(RejectReason.of(padded)).isEqualTo(r);
            assertThat(RejectReason.detail(padded)).isEqualTo("why " + r);
        }
    }

    @Test
    void aLongDetailIsCutToWhatARejectCarries() {
        byte[] data = RejectReason.NO_RESOURCES.encode("x".repeat(500));
        assertThat(data).hasSize(148);
        assertThat(RejectReason.detail(data)).hasSize(148 - 6);
    }

    @Test
    void applicationDataIsNotMistakenForAnIbexReason() {
        assertThat(RejectReason.of(null)).isNull();
        assertThat(RejectReason.of(new byte[0])).isNull();
        assertThat(RejectReason.of("no thanks".getBytes(StandardCharsets.UTF_8))).isNull();
        assertThat(RejectReason.of(new byte[] {'I', 'B', 'E', 'X', 1, 99})).as("unknown code").isNull();
        assertThat(RejectReason.detail("plain".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void theClientsExceptionNamesTheReason() {
        RdmaConnectException e = new RdmaConnectException(RdmaConnectException.Reason.REJECTED, 28,
                RejectReason.OVERLOADED.encode("8 half-open from 10.0.0.9"), null, false, null);
        assertThat(e.rejectReason()).isEqualTo(RejectReason.OVERLOADED);
        assertThat(e).hasMessageContaining("too many connection requests in progress")
                .hasMessageContaining("8 half-open from 10.0.0.9");
    }
}
