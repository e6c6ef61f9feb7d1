package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A packet of the wrong service type for the QP it names — a UD send to an RC QP, an RC send to a UD QP — is dropped
 * before it reaches the QP, and counted. Found by the packet fuzzer (benchmarks {@code PacketFuzz}): such packets from
 * any address vanished without a trace, so a device could not account for what it had been sent.
 */
class MisdirectedPacketTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void packetsOfTheWrongServiceTypeAreDroppedAndCountedWhateverTheirSource() throws Exception {
        Side rcA = h.side(h.a, 4096);
        Side rcB = h.side(h.b, 4096);
        Harness.connect(rcA, rcB, new Harness.Params());
        Side ud = h.udSide(h.a, 4096);
        ud.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x11));
        ud.qp.modify(new QpAttr().state(QpState.RTR));
        ud.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        DropCounts before = ((SoftQueuePair) rcA.qp).device().dropCounts();
        int port = h.fabric.config().udpPort();
        int a = Ipv4.toInt(InetAddress.getByName("127.0.0.2"));
        ByteBuffer bb = ByteBuffer.allocateDirect(256);
        MemorySegment buf = MemorySegment.ofBuffer(bb);
        PacketBuilder b = new PacketBuilder();
        // from a stranger, and from the RC QP's own peer with the path's exact address and port
        for (String from : new String[] {"127.0.0.9", "127.0.0.3"}) {
            int src = Ipv4.toInt(InetAddress.getByName(from));
            try (DatagramChannel ch = DatagramChannel.open()) {
                int srcPort = from.equals("127.0.0.3") ? -1 : 0;
                ch.bind(new InetSocketAddress(from, 0));
                int sp = srcPort == 0 ? ((InetSocketAddress) ch.getLocalAddress()).getPort() : port;
                int n = b.begin(buf, 0, Opcode.UD_SEND_ONLY).destQp(rcA.qp.qpNum()).psn(0).deth(0x11, 7)
                        .payload(new byte[16]).finishIpv4(src, a, sp, port);
                send(ch, bb, n, from, srcPort, rcB);
                n = b.begin(buf, 0, Opcode.RC_SEND_ONLY).destQp(ud.qp.qpNum()).psn(0).payload(new byte[16])
                        .finishIpv4(src, a, sp, port);
                send(ch, bb, n, from, srcPort, rcB);
            }
        }
        SoftQueuePair qp = (SoftQueuePair) rcA.qp;
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(qp.device().dropCounts().wrongTransport() - before.wrongTransport()).isEqualTo(4));
        DropCounts after = qp.device().dropCounts();
        assertThat(after.total() - before.total()).as(after.toString()).isEqualTo(4);
        assertThat(rcA.qp.state()).isEqualTo(QpState.RTS);
        assertThat(ud.qp.state()).isEqualTo(QpState.RTS);
    }

    /**
     * Sends {@code n} bytes to device a: from the channel, or (srcPort -1) from device b's own link — the RC
     * connection's exact path.
     */
    private void send(DatagramChannel ch, ByteBuffer bb, int n, String from, int srcPort, Side peer)
            throws Exception {
        bb.clear().limit(n);
        InetSocketAddress to = new InetSocketAddress("127.0.0.2", h.fabric.config().udpPort());
        if (srcPort < 0) {
            ((SoftQueuePair) peer.qp).device().link(0).send(bb, Ipv4.toInt(to.getAddress()), to);
        } else {
            ch.send(bb, to);
        }
    }
}
