package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RcSendTest {
    @Test
    void sendArrivesWithContents() {
        try (Harness h = new Harness()) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = h.side(h.b, 1 << 16);
            Harness.connect(x, y, new Harness.Params());
            RecvBatch rb = RecvBatch.allocate(h.arena, 4, 1);
            rb.wrId(0, 77).single(0, y.mr.address(), 4096, y.mr.lkey());
            y.qp.postRecv(rb, 1);
            for (int i = 0; i < 3000; i++) {
                x.buf.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            SendBatch sb = SendBatch.allocate(h.arena, 4, 1);
            sb.wrId(0, 5).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 3000, x.mr.lkey());
            x.qp.postSend(sb, 1);
            assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, Duration.ofSeconds(5))).isEqualTo(1);
            CompletionBatch wc = y.wc;
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.wrId(0)).isEqualTo(77);
            assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RECV);
            assertThat(wc.byteLen(0)).isEqualTo(3000);
            for (int i = 0; i < 3000; i++) {
                assertThat(y.buf.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) i);
            }
            assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, Duration.ofSeconds(5))).isEqualTo(1);
            assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(x.wc.wrId(0)).isEqualTo(5);
            assertThat(x.wc.opcode(0)).isEqualTo(WcOpcode.SEND);
        }
    }
}
