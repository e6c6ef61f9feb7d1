package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A destroyed QP is garbage at once, even with its retransmit timer armed far ahead. Found by the connection soak
 * (benchmarks {@code ConnectionCycles}): a disarmed timer stayed in the timer queue until its old deadline — and the
 * timer thread slept until then with the earliest one in hand — holding its QP with the send queue's WQEs, so
 * connection churn kept hundreds of dead QPs reachable (heap after GC swung between 15 and 43 MB at ~250 cycles a
 * second), the more the longer the ACK timeout.
 */
class DestroyedQpTest {

    @Test
    void aDestroyedQpWithItsRetransmitTimerArmedIsCollected() throws Exception {
        try (Harness h = new Harness()) {
            Harness.Params p = new Harness.Params();
            p.timeout = 26; // 4.096 µs × 2^26 × 0.1: a retransmission 27 s away
            int a = Ipv4.toInt(InetAddress.getByName("127.0.0.2"));
            int b = Ipv4.toInt(InetAddress.getByName("127.0.0.3"));
            WeakReference<Object> qp = connectSendAndDestroy(h, p, a, b);
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
                System.gc();
                return qp.get() == null;
            });
            assertThat(qp.get()).isNull();
        }
    }

    private static WeakReference<Object> connectSendAndDestroy(Harness h, Harness.Params p, int a, int b) {
        Side x = h.side(h.a, 4096, new QpCap(16, 16, 1, 1, 0), true, null, null);
        Side y = h.side(h.b, 4096, new QpCap(16, 16, 1, 1, 0), true, null, null);
        Harness.connect(x, y, p);
        h.fabric.faults().blackHole(a, b).blackHole(b, a); // unanswered: the retransmit timer stays armed
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 64, x.mr.lkey());
        x.qp.postSend(sb, 1);
        WeakReference<Object> ref = new WeakReference<>(x.qp);
        x.qp.close();
        y.qp.close();
        return ref;
    }
}
