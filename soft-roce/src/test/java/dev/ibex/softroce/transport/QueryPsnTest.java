package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Psn;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Regression: query_qp reported the SQ/RQ PSN of the last modify, not where the transport is (rxe reports the live ones). */
class QueryPsnTest {
    @Test
    void queryReportsTheLiveSendAndReceivePsns() {
        try (Harness h = new Harness()) {
            Side x = h.side(h.a, 1 << 16, new QpCap(16, 16, 1, 1, 0), true, null, null);
            Side y = h.side(h.b, 1 << 16, new QpCap(16, 16, 1, 1, 0), true, null, null);
            Harness.Params p = new Harness.Params();
            Harness.connect(x, y, p);
            int n = 5;
            RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            for (int i = 0; i < n; i++) {
                rb.clear(0).wrId(0, i).single(0, y.mr.address(), 64, y.mr.lkey());
                y.qp.postRecv(rb, 1);
                sb.clear(0).wrId(0, i).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 64, x.mr.lkey());
                x.qp.postSend(sb, 1);
            }
            assertThat(Harness.pollAtLeast(x.scq, CompletionBatch.allocate(h.arena, n), n, Duration.ofSeconds(10)))
                    .isEqualTo(n);
            assertThat(x.qp.query(QpAttr.SQ_PSN).sqPsn()).isEqualTo(Psn.add(p.psnA, n));
            assertThat(y.qp.query(QpAttr.RQ_PSN).rqPsn()).isEqualTo(Psn.add(p.psnA, n));
            assertThat(y.qp.query(QpAttr.SQ_PSN).sqPsn()).as("y sent nothing").isEqualTo(p.psnB);
        }
    }
}
