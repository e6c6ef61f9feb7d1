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
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.Psn;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Forged responses against a live RC connection with requests outstanding: nothing off the connection's path is
 * believed, and a response for a PSN that was never sent is dropped and counted instead of acknowledging (and so
 * losing) the outstanding sends.
 */
class ForgedPacketTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int SENDS = 10;
    private Harness h;
    private Side x;
    private Side y;
    private final Harness.Params params = new Harness.Params();

    @BeforeEach
    void open() {
        h = new Harness();
        x = h.side(h.a, 1 << 16, new QpCap(64, 64, 1, 1, 0), true, null, null);
        y = h.side(h.b, 1 << 16, new QpCap(64, 64, 1, 1, 0), true, null, null);
        Harness.connect(x, y, params);
    }

    @AfterEach
    void close() {
        h.close();
    }

    /** x sends {@link #SENDS} numbered messages to y, which has posted no receive yet: they wait out RNR NAKs. */
    private void sendsOutstanding() {
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        for (int i = 0; i < SENDS; i++) {
            x.buf.set(ValueLayout.JAVA_INT, i * 64L, i);
            sb.clear(0).wrId(0, i).opcode(0, WrOpcode.SEND).single(0, x.mr.address() + i * 64L, 64, x.mr.lkey());
            x.qp.postSend(sb, 1);
        }
    }

    /** y posts its receives: every send must now arrive exactly once, in order, and complete successfully. */
    private void expectEverySendDeliveredOnce() {
        RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);
        for (int i = 0; i < SENDS; i++) {
            rb.clear(0).wrId(0, i).single(0, y.mr.address() + i * 64L, 64, y.mr.lkey());
            y.qp.postRecv(rb, 1);
        }
        CompletionBatch recvs = CompletionBatch.allocate(h.arena, SENDS);
        assertThat(Harness.pollAtLeast(y.rcq, recvs, SENDS, WAIT)).as(Harness.describe(y.qp)).isEqualTo(SENDS);
        for (int i = 0; i < SENDS; i++) {
            assertThat(recvs.status(i)).isEqualTo(WcStatus.SUCCESS);
            assertThat(y.buf.get(ValueLayout.JAVA_INT, recvs.wrId(i) * 64L)).isEqualTo(i);
            assertThat(recvs.wrId(i)).isEqualTo(i);
        }
        CompletionBatch sends = CompletionBatch.allocate(h.arena, SENDS);
        assertThat(Harness.pollAtLeast(x.scq, sends, SENDS, WAIT)).as(Harness.describe(x.qp)).isEqualTo(SENDS);
        for (int i = 0; i < SENDS; i++) {
            assertThat(sends.status(i)).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(x.qp.state()).isEqualTo(QpState.RTS);
    }

    private void assertNoSendCompleted() {
        CompletionBatch wc = CompletionBatch.allocate(h.arena, SENDS);
        assertThat(Harness.pollAtLeast(x.scq, wc, 1, Duration.ofMillis(200))).as("sends completed by a forgery")
                .isZero();
    }

    /** An ACK/NAK as y would send it to x, with {@code psn}; returns its length in {@code buf}. */
    private int response(MemorySegment buf, int syndrome, int psn, int srcPort) {
        int src = Ipv4.toInt(addr("127.0.0.3"));
        int dst = Ipv4.toInt(addr("127.0.0.2"));
        return new PacketBuilder().begin(buf, 0, Opcode.RC_ACKNOWLEDGE).destQp(x.qp.qpNum()).psn(psn)
                .aeth(syndrome, 0).finishIpv4(src, dst, srcPort, h.fabric.config().udpPort());
    }

    private static InetAddress addr(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private int farAhead() {
        return Psn.add(params.psnA, 1000);
    }

    /** Regression: one ACK far ahead of the sent PSNs completed ~120 sends the peer never received. */
    @Test
    void aResponseAheadOfEveryPsnSentIsDroppedAndCountedNotTakenAsAnAcknowledgement() throws Exception {
        sendsOutstanding();
        SoftQueuePair qp = (SoftQueuePair) x.qp;
        int port = h.fabric.config().udpPort();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(256);
            RocePacket pkt = new RocePacket();
            for (int syndrome : new int[] {Aeth.ack(Aeth.CREDITS_UNLIMITED),
                    Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR)}) {
                int len = response(buf, syndrome, farAhead(), port);
                pkt.parseIpv4(buf, 0, len, Ipv4.toInt(addr("127.0.0.3")), Ipv4.toInt(addr("127.0.0.2")), port, port);
                // exactly the path's addresses and port: only the PSN check stands between it and the completer
                assertThat(qp.deliver(pkt, Ipv4.toInt(addr("127.0.0.3")), port, Ipv4.toInt(addr("127.0.0.2"))))
                        .isTrue();
            }
        }
        Awaitility.await().atMost(WAIT).until(() -> qp.invalidResponses() == 2);
        assertNoSendCompleted();
        expectEverySendDeliveredOnce();
    }

    /** From the peer's IP address, but not from its port: dropped before the QP sees it, and counted. */
    @Test
    void aResponseFromAnotherUdpPortOfThePeersAddressIsDroppedAndCounted() throws Exception {
        sendsOutstanding();
        SoftDevice device = ((SoftQueuePair) x.qp).device();
        long before = device.dropCounts().offPath();
        try (DatagramChannel intruder = DatagramChannel.open()) {
            intruder.bind(new InetSocketAddress("127.0.0.3", 0));
            int srcPort = ((InetSocketAddress) intruder.getLocalAddress()).getPort();
            ByteBuffer bb = ByteBuffer.allocateDirect(256);
            MemorySegment buf = MemorySegment.ofBuffer(bb);
            // even a PSN inside the outstanding range: a valid-looking ACK that would complete the first send
            int len = response(buf, Aeth.ack(Aeth.CREDITS_UNLIMITED), params.psnA, srcPort);
            bb.limit(len);
            intruder.send(bb, new InetSocketAddress("127.0.0.2", h.fabric.config().udpPort()));
        }
        Awaitility.await().atMost(WAIT).until(() -> device.dropCounts().offPath() == before + 1);
        assertNoSendCompleted();
        expectEverySendDeliveredOnce();
    }
}
