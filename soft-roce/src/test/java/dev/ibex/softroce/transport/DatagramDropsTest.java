package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A UD receiver counts every datagram it drops — wrong Q_Key, no receive posted, too long for the receive — so that
 * sent − received adds up to the network's losses plus these. Found by the fault matrix (benchmarks
 * {@code FaultMatrix}, UD rows): datagrams longer than the receiver's buffers vanished without a trace.
 */
class DatagramDropsTest {
    private static final int QKEY = 0x0BAD_CAFE;

    private static void ready(Side s) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY));
        s.qp.modify(new QpAttr().state(QpState.RTR));
        s.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    @Test
    void everyDatagramTheReceiverDropsIsCountedByReason() throws Exception {
        try (Harness h = new Harness()) {
            Side x = h.udSide(h.a, 1 << 16);
            Side y = h.udSide(h.b, 1 << 16);
            ready(x);
            ready(y);
            SoftQueuePair receiver = (SoftQueuePair) y.qp;
            AddressHandle ah = x.pd.createAddressHandle(Harness.path(h.b));
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);

            send(x, sb, ah, y, 0x7777, 8); // wrong Q_Key
            send(x, sb, ah, y, QKEY, 8); // no receive posted
            await(receiver, new DatagramDrops(1, 1, 0));

            rb.clear(0).wrId(0, 1).single(0, y.mr.address(), 64, y.mr.lkey());
            y.qp.postRecv(rb, 1);
            send(x, sb, ah, y, QKEY, 100); // 100 bytes + the 40-byte GRH do not fit 64
            await(receiver, new DatagramDrops(1, 1, 1));

            send(x, sb, ah, y, QKEY, 16); // fits: received, nothing more counted
            assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, Duration.ofSeconds(10))).isEqualTo(1);
            assertThat(receiver.datagramDrops()).isEqualTo(new DatagramDrops(1, 1, 1));
            assertThat(receiver.datagramDrops().total()).isEqualTo(3);
        }
    }

    private static void send(Side x, SendBatch sb, AddressHandle ah, Side y, int qkey, int length) {
        sb.clear(0).wrId(0, length).opcode(0, WrOpcode.SEND).ud(0, ah, y.qp.qpNum(), qkey).single(0, x.mr.address(),
                length, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, Duration.ofSeconds(10))).isEqualTo(1);
    }

    private static void await(SoftQueuePair qp, DatagramDrops expected) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(qp.datagramDrops()).isEqualTo(expected));
    }
}
