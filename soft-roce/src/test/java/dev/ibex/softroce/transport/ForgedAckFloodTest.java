package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.Psn;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ACKs forged on a connection's path for PSNs never sent, arriving while the send task is busy, are each dropped and
 * counted, and never displace a real ACK. Found by the packet fuzzer (benchmarks {@code PacketFuzz}): ACKs that arrive
 * while the task is busy are folded into the newest one, so a forged ACK far ahead pushed out the real ACKs waiting
 * (the sends they acknowledged waited for a retransmission) and a burst of forged ACKs was counted as one.
 */
class ForgedAckFloodTest {
    private static final int SENDS = 8;
    private static final int FORGED_PER_THREAD = 4_000;
    private final Harness h = new Harness();
    private final Harness.Params params = new Harness.Params();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void eachForgedAckIsCountedAndRealAcksStillComplete() throws Exception {
        params.timeout = 22; // 1.7 s scaled: no retransmission during the test, only the ACKs it delivers
        Side x = h.side(h.a, 1 << 16, new QpCap(64, 64, 1, 1, 0), true, null, null);
        Side y = h.side(h.b, 1 << 16, new QpCap(64, 64, 1, 1, 0), true, null, null);
        Harness.connect(x, y, params);
        int a = Ipv4.toInt(InetAddress.getByName("127.0.0.2"));
        int b = Ipv4.toInt(InetAddress.getByName("127.0.0.3"));
        h.fabric.faults().blackHole(a, b).blackHole(b, a); // only the ACKs delivered below reach x
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        for (int i = 0; i < SENDS; i++) {
            sb.clear(0).wrId(0, i).opcode(0, WrOpcode.SEND).single(0, x.mr.address() + i * 64L, 64, x.mr.lkey());
            x.qp.postSend(sb, 1);
        }
        SoftQueuePair qp = (SoftQueuePair) x.qp;
        int port = h.fabric.config().udpPort();
        int lastSent = Psn.add(params.psnA, SENDS - 1);
        CountDownLatch go = new CountDownLatch(1);
        Runnable forger = () -> {
            RocePacket pkt = new RocePacket();
            MemorySegment buf = MemorySegment.ofArray(new byte[64]);
            PacketBuilder builder = new PacketBuilder();
            await(go);
            for (int i = 0; i < FORGED_PER_THREAD; i++) {
                int psn = Psn.add(lastSent, 1000 + i); // never sent
                deliver(qp, pkt, buf, builder, psn, b, a, port);
            }
        };
        Runnable peer = () -> { // the real ACK of every send, over and over, while the forgeries arrive
            RocePacket pkt = new RocePacket();
            MemorySegment buf = MemorySegment.ofArray(new byte[64]);
            PacketBuilder builder = new PacketBuilder();
            await(go);
            for (int i = 0; i < FORGED_PER_THREAD; i++) {
                deliver(qp, pkt, buf, builder, Psn.add(params.psnA, i % SENDS), b, a, port);
            }
        };
        Thread[] threads = {Thread.ofPlatform().start(forger), Thread.ofPlatform().start(forger),
                Thread.ofPlatform().start(peer)};
        go.countDown();
        for (Thread t : threads) {
            t.join(30_000);
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(qp.invalidResponses()).isEqualTo(2L * FORGED_PER_THREAD));
        CompletionBatch wc = CompletionBatch.allocate(h.arena, SENDS);
        assertThat(Harness.pollAtLeast(x.scq, wc, SENDS, Duration.ofSeconds(1))).as(Harness.describe(x.qp))
                .isEqualTo(SENDS);
        for (int i = 0; i < SENDS; i++) {
            assertThat(wc.status(i)).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(x.qp.state()).isEqualTo(QpState.RTS);
    }

    private static void deliver(SoftQueuePair qp, RocePacket pkt, MemorySegment buf, PacketBuilder builder, int psn,
            int src, int dst, int port) {
        int len = builder.begin(buf, 0, Opcode.RC_ACKNOWLEDGE).destQp(qp.qpNum()).psn(psn)
                .aeth(Aeth.ack(Aeth.CREDITS_UNLIMITED), 0).finishIpv4(src, dst, port, port);
        try {
            pkt.parseIpv4(buf, 0, len, src, dst, port, port);
        } catch (dev.ibex.softroce.wire.MalformedPacketException e) {
            throw new AssertionError(e);
        }
        assertThat(qp.deliver(pkt, src, port, dst)).isTrue();
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
