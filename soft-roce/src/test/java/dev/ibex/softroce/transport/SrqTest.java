package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SrqTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static AsyncEvent awaitEvent(DeviceContext dev, AsyncEventType type) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent e = dev.asyncEvents().poll();
            if (e != null && e.type() == type) {
                return e;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no " + type);
    }

    @Test
    void severalQpsShareReceivesAndTheLimitEventIsOneShot() {
        try (Harness h = new Harness()) {
            ProtectionDomain pdb = h.b.allocPd();
            SharedReceiveQueue srq = pdb.createSharedReceiveQueue(64, 1, 0);
            int qps = 3;
            Side[] senders = new Side[qps];
            Side[] receivers = new Side[qps];
            for (int i = 0; i < qps; i++) {
                senders[i] = h.side(h.a, 4096);
                receivers[i] = h.side(h.b, 4096, new QpCap(16, 0, 1, 0, 0), true, srq, pdb);
                Harness.connect(senders[i], receivers[i], new Harness.Params());
            }
            assertThat(receivers[0].qp.srq()).isSameAs(srq);
            RecvBatch direct = RecvBatch.allocate(h.arena, 1, 1);
            assertThatThrownBy(() -> receivers[0].qp.postRecv(direct, 1)).isInstanceOf(PostException.class);
            RecvBatch rb = RecvBatch.allocate(h.arena, 30, 1);
            Side r0 = receivers[0];
            for (int i = 0; i < 30; i++) {
                rb.wrId(i, i).single(i, r0.mr.address() + 64L * i, 64, r0.mr.lkey());
            }
            srq.postRecv(rb, 30);
            srq.modify(0, 25, SharedReceiveQueue.LIMIT); // arm: fires when fewer than 25 remain
            assertThat(srq.query().srqLimit()).isEqualTo(25);
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            for (int m = 0; m < 9; m++) {
                Side s = senders[m % qps];
                s.buf.set(ValueLayout.JAVA_LONG, 0, m);
                sb.clear(0).wrId(0, m).opcode(0, WrOpcode.SEND).single(0, s.mr.address(), 8, s.mr.lkey());
                s.qp.postSend(sb, 1);
                assertThat(Harness.pollAtLeast(s.scq, s.wc, 1, WAIT)).isEqualTo(1);
                assertThat(s.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            }
            Set<Long> wrIds = new HashSet<>();
            Set<Long> values = new HashSet<>();
            for (int i = 0; i < qps; i++) {
                Side r = receivers[i];
                CompletionBatch wc = r.wc;
                assertThat(Harness.pollAtLeast(r.rcq, wc, 3, WAIT)).isEqualTo(3);
                for (int k = 0; k < 3; k++) {
                    assertThat(wc.status(k)).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wc.qpNum(k)).isEqualTo(r.qp.qpNum());
                    wrIds.add(wc.wrId(k));
                    values.add(r0.buf.get(ValueLayout.JAVA_LONG, 64L * wc.wrId(k)));
                }
            }
            assertThat(wrIds).hasSize(9);
            assertThat(values).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
            AsyncEvent limit = awaitEvent(h.b, AsyncEventType.SRQ_LIMIT_REACHED);
            assertThat(limit.srq()).isSameAs(srq);
            assertThat(srq.query().srqLimit()).as("one-shot: disarmed").isZero();
            assertThat(h.b.asyncEvents().poll()).isNull();
            assertThatThrownBy(() -> srq.modify(128, 0, SharedReceiveQueue.MAX_WR)).isInstanceOf(RdmaException.class);
            assertThatThrownBy(srq::close).isInstanceOf(RdmaException.class);
            // a QP on an SRQ that goes to ERR reports its last WQE
            receivers[1].qp.modify(new QpAttr().state(QpState.ERR));
            assertThat(awaitEvent(h.b, AsyncEventType.QP_LAST_WQE_REACHED).qp()).isSameAs(receivers[1].qp);
        }
    }
}
