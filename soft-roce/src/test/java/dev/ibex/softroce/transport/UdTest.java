package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UdTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int QKEY = 0x01234567;

    private static void ready(Side s, int qkey) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey));
        s.qp.modify(new QpAttr().state(QpState.RTR));
        s.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    @Test
    void datagramsCarryAGrhAndTheSourceQpAndWrongQkeysAreDropped() throws Exception {
        try (Harness h = new Harness()) {
            Side x = h.udSide(h.a, 1 << 16);
            Side y = h.udSide(h.b, 1 << 16);
            ready(x, QKEY);
            ready(y, QKEY);
            AddressHandle ah = x.pd.createAddressHandle(Harness.path(h.b));
            RecvBatch rb = RecvBatch.allocate(h.arena, 4, 1);
            for (int i = 0; i < 2; i++) {
                rb.wrId(i, i).single(i, y.mr.address() + 2048L * i, 2048, y.mr.lkey());
            }
            y.qp.postRecv(rb, 2);
            SendBatch sb = SendBatch.allocate(h.arena, 4, 1);
            x.buf.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            // wrong Q_Key: dropped silently, the sender completes anyway (UD is unreliable)
            sb.wrId(0, 1).opcode(0, WrOpcode.SEND).ud(0, ah, y.qp.qpNum(), 0x7777).single(0, x.mr.address(), 8,
                    x.mr.lkey());
            sb.wrId(1, 2).opcode(1, WrOpcode.SEND_WITH_IMM).immData(1, 99).ud(1, ah, y.qp.qpNum(), QKEY)
                    .single(1, x.mr.address(), 8, x.mr.lkey());
            // larger than the MTU (4096 on lo): not sent, completes successfully
            sb.wrId(2, 3).opcode(2, WrOpcode.SEND).ud(2, ah, y.qp.qpNum(), QKEY).single(2, x.mr.address(), 5000,
                    x.mr.lkey());
            x.qp.postSend(sb, 3);
            assertThat(Harness.pollAtLeast(x.scq, x.wc, 3, WAIT)).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
            }
            assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT)).isEqualTo(1);
            assertThat(y.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(y.wc.wrId(0)).isZero();
            assertThat(y.wc.opcode(0)).isEqualTo(WcOpcode.RECV);
            assertThat(y.wc.byteLen(0)).isEqualTo(VerbsAbi.GRH_SIZE + 8);
            assertThat(y.wc.flags(0) & WcFlags.GRH).isNotZero();
            assertThat(y.wc.flags(0) & WcFlags.WITH_IMM).isNotZero();
            assertThat(y.wc.immData(0)).isEqualTo(99);
            assertThat(y.wc.srcQp(0)).isEqualTo(x.qp.qpNum());
            // GRH: 20 zero bytes, then the IPv4 header with the sender's and receiver's addresses
            assertThat(y.buf.get(ValueLayout.JAVA_BYTE, 20)).isEqualTo((byte) 0x45);
            int src = y.buf.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 32);
            int dst = y.buf.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 36);
            assertThat(src).isEqualTo(Ipv4.toInt(InetAddress.getByName("127.0.0.2")));
            assertThat(dst).isEqualTo(Ipv4.toInt(InetAddress.getByName("127.0.0.3")));
            assertThat(y.buf.get(ValueLayout.JAVA_LONG, VerbsAbi.GRH_SIZE)).isEqualTo(0x1122334455667788L);
            assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, Duration.ofMillis(200))).as("nothing else").isZero();
            ah.close();
        }
    }
}
