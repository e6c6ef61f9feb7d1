package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** UD multicast: attach to ::ffff:G, send to QPN 0xFFFFFF, fan-out to every attached QP with the Q_Key checked. */
class MulticastTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int QKEY = UdParam.RDMA_UDP_QKEY;

    private static void ready(Side s, int qkey) {
        s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey));
        s.qp.modify(new QpAttr().state(QpState.RTR));
        s.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    private static void postReceive(Side s, int n) {
        RecvBatch rb = RecvBatch.allocate(java.lang.foreign.Arena.ofAuto(), n, 1);
        for (int i = 0; i < n; i++) {
            rb.wrId(i, i).single(i, s.mr.address() + 256L * i, 256, s.mr.lkey());
        }
        s.qp.postRecv(rb, n);
    }

    @Test
    void everyAttachedQpOnEveryDeviceGetsOneCopy() throws Exception {
        try (Harness h = new Harness()) {
            Gid mgid = Gid.of(InetAddress.getByName("239.7.7.7"));
            Side sender = h.udSide(h.a, 4096);
            Side a1 = h.udSide(h.a, 4096);
            Side b1 = h.udSide(h.b, 4096);
            Side b2 = h.udSide(h.b, 4096);
            Side wrongKey = h.udSide(h.b, 4096);
            for (Side s : new Side[] {sender, a1, b1, b2}) {
                ready(s, QKEY);
            }
            ready(wrongKey, 0x42);
            for (Side s : new Side[] {a1, b1, b2, wrongKey}) {
                postReceive(s, 4);
                s.qp.attachMulticast(mgid, 0);
            }
            b2.qp.attachMulticast(mgid, 0); // twice is a no-op
            assertThatThrownBy(() -> b1.qp.attachMulticast(Harness.path(h.b).dgid(), 0))
                    .isInstanceOf(RdmaException.class).hasMessageContaining("multicast");
            AddressHandle ah = sender.pd.createAddressHandle(AhAttr.roce(mgid, 0, 1));
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            sender.buf.set(ValueLayout.JAVA_LONG, 0, 0xABCDL);
            sb.wrId(0, 1).opcode(0, WrOpcode.SEND).ud(0, ah, UdParam.MULTICAST_QPN, QKEY)
                    .single(0, sender.mr.address(), 8, sender.mr.lkey());
            sender.qp.postSend(sb, 1);
            assertThat(Harness.pollAtLeast(sender.scq, sender.wc, 1, WAIT)).isEqualTo(1);
            for (Side s : new Side[] {a1, b1, b2}) {
                assertThat(Harness.pollAtLeast(s.rcq, s.wc, 1, WAIT)).as("a copy for QP %d", s.qp.qpNum())
                        .isEqualTo(1);
                assertThat(s.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
                assertThat(s.wc.srcQp(0)).isEqualTo(sender.qp.qpNum());
                assertThat(s.buf.get(ValueLayout.JAVA_LONG, VerbsAbi.GRH_SIZE)).isEqualTo(0xABCDL);
                int dst = s.buf.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 36);
                assertThat(dst).as("GRH destination is the group").isEqualTo(0xEF070707);
            }
            assertThat(Harness.pollAtLeast(wrongKey.rcq, wrongKey.wc, 1, Duration.ofMillis(200)))
                    .as("wrong Q_Key: dropped").isZero();
            for (Side s : new Side[] {a1, b1, b2}) {
                assertThat(Harness.pollAtLeast(s.rcq, s.wc, 1, Duration.ofMillis(100))).as("exactly one").isZero();
            }
            // after detaching, b1 gets nothing; b2 still does
            b1.qp.detachMulticast(mgid, 0);
            assertThatThrownBy(() -> b1.qp.detachMulticast(mgid, 0)).isInstanceOf(RdmaException.class);
            sender.qp.postSend(sb, 1);
            assertThat(Harness.pollAtLeast(b2.rcq, b2.wc, 1, WAIT)).isEqualTo(1);
            assertThat(Harness.pollAtLeast(b1.rcq, b1.wc, 1, Duration.ofMillis(200))).isZero();
            ah.close();
        }
    }

    @Test
    void everyDatagramAQpDropsIsCountedOnThatQp() throws Exception {
        try (Harness h = new Harness()) {
            Gid mgid = Gid.of(InetAddress.getByName("239.7.7.8"));
            Side sender = h.udSide(h.a, 4096);
            Side twoReceives = h.udSide(h.b, 4096);
            Side wrongKey = h.udSide(h.b, 4096);
            ready(sender, QKEY);
            ready(twoReceives, QKEY);
            ready(wrongKey, 0x42);
            postReceive(twoReceives, 2);
            postReceive(wrongKey, 4);
            twoReceives.qp.attachMulticast(mgid, 0);
            wrongKey.qp.attachMulticast(mgid, 0);
            assertThat(twoReceives.qp.receiveDrops()).isZero();

            AddressHandle ah = sender.pd.createAddressHandle(AhAttr.roce(mgid, 0, 1));
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            sb.wrId(0, 1).opcode(0, WrOpcode.SEND).ud(0, ah, UdParam.MULTICAST_QPN, QKEY)
                    .single(0, sender.mr.address(), 8, sender.mr.lkey());
            for (int i = 0; i < 5; i++) {
                sender.qp.postSend(sb, 1);
                assertThat(Harness.pollAtLeast(sender.scq, sender.wc, 1, WAIT)).isEqualTo(1);
            }
            assertThat(Harness.pollAtLeast(twoReceives.rcq, twoReceives.wc, 2, WAIT)).isEqualTo(2);
            // two receives posted, five datagrams: three dropped by the "NIC" — counted, not silent
            org.awaitility.Awaitility.await().atMost(WAIT).untilAsserted(() -> {
                assertThat(twoReceives.qp.receiveDrops()).isEqualTo(3);
                assertThat(wrongKey.qp.receiveDrops()).as("Q_Key mismatch").isEqualTo(5);
            });
            twoReceives.qp.close();
            assertThat(twoReceives.qp.receiveDrops()).as("kept after close").isEqualTo(3);
            ah.close();
        }
    }

    @Test
    void joiningPastTheDeviceGroupLimitFailsTypedAndLeavingMakesRoom() throws Exception {
        try (Harness h = new Harness(java.util.Map.of(dev.ibex.softroce.SoftRoceConfig.MAX_MULTICAST_GROUPS, "4"))) {
            assertThat(h.b.queryDevice().maxMcastGrp()).isEqualTo(4);
            Side member = h.udSide(h.b, 4096);
            ready(member, QKEY);
            for (int i = 1; i <= 4; i++) {
                member.qp.attachMulticast(Gid.of(InetAddress.getByName("239.7.8." + i)), 0);
            }
            Gid fifth = Gid.of(InetAddress.getByName("239.7.8.5"));
            assertThatThrownBy(() -> member.qp.attachMulticast(fifth, 0))
                    .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM))
                    .hasMessageContaining("max_mcast_grp");
            member.qp.detachMulticast(Gid.of(InetAddress.getByName("239.7.8.1")), 0);
            member.qp.attachMulticast(fifth, 0);
        }
    }
}
