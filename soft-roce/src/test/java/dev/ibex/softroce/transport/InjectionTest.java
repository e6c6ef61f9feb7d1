package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.SoftRoceConfig;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Injection (issues 14 and 12): a host at another address forges RC SENDs — valid RoCEv2 with a correct ICRC — at a
 * connected QP. QPNs and starting PSNs are random (what the CM gives every connection), so a blind forger must guess
 * both: packets for a QPN that is no live QP's are dropped on arrival as addressed to no QP. Even a forger that knows
 * the QPN and the next PSN (an on-path observer) is dropped, because RC packets count only from their connection's
 * path (address and UDP port). No forged packet completes a receive, and the connection carries on.
 */
class InjectionTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String FORGER = "127.0.0.9";
    private Harness h;
    private Side x;
    private Side y;
    private int port;
    private int expectedPsn;

    @BeforeEach
    void connect() {
        port = Harness.freePort();
        h = new Harness(java.util.Map.of(SoftRoceConfig.PORT, Integer.toString(port)));
        x = h.side(h.a, 1 << 16, new QpCap(64, 512, 1, 1, 0), true, null, null);
        y = h.side(h.b, 1 << 16, new QpCap(64, 512, 1, 1, 0), true, null, null);
        Harness.Params p = new Harness.Params();
        SecureRandom r = new SecureRandom();
        p.psnA = r.nextInt(1 << 24); // as the CM draws them
        expectedPsn = p.psnA;
        p.psnB = r.nextInt(1 << 24);
        Harness.connect(x, y, p);
        RecvBatch rb = RecvBatch.allocate(h.arena, 256, 1);
        for (int i = 0; i < 256; i++) {
            rb.clear(i).wrId(i, i).single(i, y.mr.address() + 64L * i, 64, y.mr.lkey());
        }
        y.qp.postRecv(rb, 256);
    }

    @AfterEach
    void close() {
        h.close();
    }

    private static int ip(String s) throws Exception {
        return Ipv4.toInt((Inet4Address) InetAddress.getByName(s));
    }

    /** Sends {@code n} forged SEND_ONLY packets from {@link #FORGER} to y's device, QPN and PSN per packet. */
    private void forge(int n, java.util.function.IntUnaryOperator qpn, java.util.function.IntUnaryOperator psn)
            throws Exception {
        int src = ip(FORGER);
        int dst = ip("127.0.0.3");
        PacketBuilder b = new PacketBuilder();
        MemorySegment pkt = MemorySegment.ofArray(new byte[512]);
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(FORGER, 0));
            int srcPort = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            InetSocketAddress to = new InetSocketAddress("127.0.0.3", port);
            for (int i = 0; i < n; i++) {
                b.begin(pkt, 0, Opcode.RC_SEND_ONLY).destQp(qpn.applyAsInt(i)).psn(psn.applyAsInt(i)).ackReq(true);
                pkt.asSlice(b.payloadOffset(), 16).fill((byte) 0x66);
                int len = b.payloadLength(16).finishIpv4(src, dst, srcPort, port);
                ch.send(ByteBuffer.wrap(pkt.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0, len), to);
            }
        }
    }

    @Test
    void forgedPacketsWithGuessedQpnsOrPsnsReachNothing() throws Exception {
        SoftDevice dev = ((SoftProtectionDomain) y.pd).softDevice();
        long unknownBefore = dev.dropCounts().unknownQp();
        long offPathBefore = dev.dropCounts().offPath();
        SplittableRandom guess = new SplittableRandom(12);
        int realQpn = y.qp.qpNum();
        // 1. guessed QPNs (never the real one: a blind guess hits it with probability 2^-24 per packet)
        forge(2000, i -> {
            int q;
            do {
                q = guess.nextInt(2, 0xFFFFFF);
            } while (q == realQpn);
            return q;
        }, i -> guess.nextInt(1 << 24));
        // 2. the real QPN (say it leaked), guessed PSNs (never the expected one: 2^-24 per packet for a blind guess)
        forge(2000, i -> realQpn, i -> {
            int p;
            do {
                p = guess.nextInt(1 << 24);
            } while (p == expectedPsn);
            return p;
        });
        // 3. the real QPN and the very PSN the QP expects next: only the source address is wrong
        forge(500, i -> realQpn, i -> expectedPsn);
        // nothing completed a receive; every forged packet was dropped on arrival
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, Duration.ofMillis(300))).as("receives completed by forgeries")
                .isZero();
        assertThat(dev.dropCounts().unknownQp() - unknownBefore).as("forged packets addressed to no QP")
                .isGreaterThanOrEqualTo(1990); // (a UDP datagram or two may be lost on a loaded host)
        assertThat(dev.dropCounts().offPath() - offPathBefore).as("forged packets for the QP, from off its path")
                .isGreaterThanOrEqualTo(2490);
        // the connection is intact: the real peer's SEND arrives and completes on both sides
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        x.buf.asSlice(0, 16).fill((byte) 0x42);
        sb.clear(0).wrId(0, 7).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 16, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
        assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT)).isEqualTo(1);
        assertThat(y.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(y.buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 64L * y.wc.wrId(0))).isEqualTo((byte) 0x42);
    }
}
