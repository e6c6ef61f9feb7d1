package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Ipv4;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * Regression: every pass of the completer pushed the retransmit deadline, including passes caused by newly
 * posted work, so a sender that kept posting to a dead peer never timed out until its send queue was full (4-6 s
 * at 50 ms per message, unbounded with a deep queue). The deadline now moves only when a response arrives.
 */
class DeadPeerTest {
    @Test
    void aSenderThatKeepsPostingToADeadPeerFailsWithinTheRetryBound() throws Exception {
        try (Harness h = new Harness()) {
            Side x = h.side(h.a, 1 << 16, new QpCap(2048, 16, 1, 1, 0), true, null, null);
            Side y = h.side(h.b, 1 << 16, new QpCap(16, 256, 1, 1, 0), true, null, null);
            Harness.Params p = new Harness.Params();
            p.timeout = 14; // 67 ms at scale 1, 6.7 ms here
            p.retryCnt = 3;
            Harness.connect(x, y, p);
            RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);
            for (int i = 0; i < 256; i++) {
                rb.clear(0).wrId(0, i).single(0, y.mr.address(), 64, y.mr.lkey());
                y.qp.postRecv(rb, 1);
            }
            // the peer vanishes: nothing of x reaches y any more
            h.fabric.faults().blackHole(Ipv4.toInt(InetAddress.getByName("127.0.0.2")),
                    Ipv4.toInt(InetAddress.getByName("127.0.0.3")));
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            long start = System.nanoTime();
            CompletionBatch wc = CompletionBatch.allocate(h.arena, 256);
            int got = 0;
            long failedAfterMs = -1;
            // post faster than the timeout (every 2 ms against 6.7 ms) until the first completion, for up to 3 s:
            // with the bug the deadline moved on every post and nothing completed before the 2,048-deep queue
            // filled, which takes longer than that
            for (int i = 0; i < 1500 && got == 0; i++) {
                sb.clear(0).wrId(0, i).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 64, x.mr.lkey());
                if (x.qp.state() == QpState.RTS) {
                    x.qp.postSend(sb, 1);
                }
                Thread.sleep(2);
                got = x.scq.poll(wc);
            }
            failedAfterMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(got).as("a completion while still posting; %s", Harness.describe(x.qp)).isPositive();
            assertThat(wc.status(0)).isEqualTo(WcStatus.RETRY_EXC_ERR);
            // (retry_cnt + 1) × 6.7 ms = 27 ms; a loaded machine stretches timers, so the bound is generous
            assertThat(failedAfterMs).isLessThan(2_500);
        }
    }
}
