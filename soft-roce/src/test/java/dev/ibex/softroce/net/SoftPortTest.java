package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.PortFixture.datagram;
import static dev.ibex.softroce.net.PortFixture.ip;
import static dev.ibex.softroce.net.PortFixture.next;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.softroce.net.PortFixture.Received;
import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Mtu;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.RocePacket;
import java.net.BindException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two "hosts" on one loopback (127.0.0.2 and 127.0.0.3): exchange, lifecycle, buffers, tap. */
class SoftPortTest {
    private final PortFixture fx = new PortFixture();
    private final LinkedBlockingQueue<Received> atA = new LinkedBlockingQueue<>(), atB = new LinkedBlockingQueue<>();

    @TempDir
    Path dir;

    @AfterEach
    void closePorts() {
        fx.close();
    }

    @Test
    void twoPortsOnLoopbackExchangeRocePackets() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", a.udpPort(), atB); // same port number, like two RoCE hosts
        assertThat(a.networkInterface().isLoopback()).isTrue();
        assertThat(a.netdevMtu()).isEqualTo(65536);
        assertThat(a.pathMtu()).isEqualTo(Mtu.MTU_4096);

        PacketBuilder builder = new PacketBuilder();
        PacketBuffer out = PacketBuffer.allocateDirect(8192);
        int len = builder.begin(out.segment(), 0, Opcode.RC_SEND_ONLY).destQp(0x12).psn(7).ackReq(true)
                .payload(new byte[] {1, 2, 3, 4, 5}).finishIpv4(a.ip(), b.ip(), a.udpPort(), b.udpPort());
        assertThat(a.send(out, len, b.localAddress())).isEqualTo(SendResult.SENT);

        Received r = next(atB);
        assertThat(r.srcIp()).isEqualTo(ip("127.0.0.2"));
        assertThat(r.srcPort()).isEqualTo(a.udpPort());
        assertThat(r.dstIp()).isEqualTo(ip("127.0.0.3"));
        assertThat(r.dstPort()).isEqualTo(b.udpPort());
        assertThat(r.thread()).startsWith("ibex-softroce-rx-127.0.0.3:");
        RocePacket p = new RocePacket().parseIpv4(java.lang.foreign.MemorySegment.ofArray(r.data()), 0,
                r.data().length, r.srcIp(), r.dstIp(), r.srcPort(), r.dstPort()); // ICRC checks out
        assertThat(p.payloadLength()).isEqualTo(5);

        len = builder.begin(out.segment(), 0, Opcode.RC_ACKNOWLEDGE).destQp(0x34).psn(7)
                .aeth(Aeth.ack(31), 1).finishIpv4(b.ip(), a.ip(), b.udpPort(), a.udpPort());
        assertThat(b.send(out, len, a.localAddress())).isEqualTo(SendResult.SENT);
        Received ack = next(atA);
        assertThat(ack.srcIp()).isEqualTo(b.ip());
        assertThat(ack.data()).hasSize(20);
        assertThat(a.stats().sent()).isEqualTo(1);
        assertThat(b.stats().received()).isEqualTo(1);
        assertThat(b.stats().delivered()).isEqualTo(1);
    }

    @Test
    void pathMtuCanBeOverridden() throws Exception {
        SoftPort p = fx.open(SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(0).pathMtu(Mtu.MTU_1024),
                atA);
        assertThat(p.pathMtu()).isEqualTo(Mtu.MTU_1024);
    }

    @Test
    void closingReleasesTheSocketAndEveryThread() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        int port = a.udpPort();
        assertThat(a.joinMulticast(PortFixture.ip("239.77.1.1"))).isTrue();
        a.faults().onReceive().delay(Duration.ofMillis(1));
        SoftPort b = fx.open("127.0.0.3", port, atB);
        b.send(datagram(1, 8), a.localAddress());
        next(atA); // the fault timer thread now exists too
        String name = "127.0.0.2:" + port;
        assertThat(threadsNamed(name)).hasSize(3);

        assertThatThrownBy(() -> fx.open("127.0.0.2", port, atA)).isInstanceOf(BindException.class);
        a.close();
        a.close(); // idempotent
        assertThat(a.isOpen()).isFalse();
        assertThat(threadsNamed(name)).isEmpty();
        assertThatThrownBy(() -> a.send(datagram(1, 8), b.localAddress())).isInstanceOf(IllegalStateException.class);

        SoftPort again = fx.open("127.0.0.2", port, atA); // rebinding works
        b.send(datagram(2, 8), again.localAddress());
        assertThat(next(atA).tag()).isEqualTo(2);
    }

    @Test
    void aHandlerMayCloseItsOwnPort() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        SoftPort[] self = new SoftPort[1];
        self[0] = SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(0).handler(d -> {
            self[0].close();
            closed.countDown();
        }).open();
        SoftPort b = fx.open("127.0.0.3", 0, atB);
        b.send(datagram(1, 8), self[0].localAddress());
        assertThat(closed.await(5, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> threadsNamed("127.0.0.2:" + self[0].udpPort()).isEmpty());
    }

    @Test
    void sendingToAGoneOrImpossiblePeerReportsInsteadOfThrowing() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        // nothing listens on 127.0.0.9: UDP loses it silently, like a RoCE packet to a dead host
        assertThat(a.send(datagram(1, 8), UdpAddress.of(ip("127.0.0.9"), a.udpPort()))).isEqualTo(SendResult.SENT);
        // larger than any IPv4 datagram: the kernel refuses it
        assertThat(a.send(ByteBuffer.allocateDirect(70_000), UdpAddress.of(ip("127.0.0.3"), 1)))
                .isEqualTo(SendResult.FAILED);
        assertThat(a.stats().sendFailures()).isEqualTo(1);
        assertThat(a.stats().sent()).isEqualTo(1);
    }

    @Test
    void anInterruptedSenderDoesNotCloseThePort() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", 0, atB);
        Thread.currentThread().interrupt();
        try {
            assertThat(a.send(datagram(1, 8), b.localAddress())).isEqualTo(SendResult.SENT);
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt status restored").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(a.send(datagram(2, 8), b.localAddress())).isEqualTo(SendResult.SENT);
        assertThat(next(atB).tag()).isEqualTo(1);
        assertThat(next(atB).tag()).isEqualTo(2);
    }

    @Test
    void handlerFailuresAreCountedAndReceptionGoesOn() throws Exception {
        LinkedBlockingQueue<Integer> tags = new LinkedBlockingQueue<>();
        SoftPort a = SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(0).handler(d -> {
            int tag = d.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0);
            if (tag == 1) {
                throw new IllegalStateException("handler bug (expected by the test)");
            }
            tags.add(tag);
        }).open();
        fx.ports.add(a);
        SoftPort b = fx.open("127.0.0.3", 0, atB);
        b.send(datagram(1, 8), a.localAddress());
        b.send(datagram(2, 8), a.localAddress());
        assertThat(tags.poll(5, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(a.stats().handlerErrors()).isEqualTo(1);
    }

    @Test
    void retainedBuffersAreNotReusedAndTheirReleaseLetsReceptionContinue() throws Exception {
        List<PacketBuffer> kept = new ArrayList<>();
        LinkedBlockingQueue<Integer> seen = new LinkedBlockingQueue<>();
        SoftPort a = SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(0).receiveBuffers(2, 512)
                .handler(d -> {
                    synchronized (kept) {
                        kept.add(d.retain());
                    }
                    seen.add(d.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) & 0xFF);
                }).open();
        fx.ports.add(a);
        SoftPort b = fx.open("127.0.0.3", 0, atB);
        for (int tag = 1; tag <= 3; tag++) {
            b.send(datagram(tag, 100), a.localAddress());
        }
        assertThat(seen.poll(5, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(seen.poll(5, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(seen.poll(200, TimeUnit.MILLISECONDS)).as("both buffers are retained: no third delivery").isNull();
        synchronized (kept) {
            assertThat(kept).extracting(k -> (int) k.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0))
                    .containsExactly(1, 2); // still intact
            kept.get(0).release();
            assertThatThrownBy(() -> kept.get(0).release()).isInstanceOf(IllegalStateException.class);
        }
        assertThat(seen.poll(5, TimeUnit.SECONDS)).isEqualTo(3);
    }

    @Test
    void datagramsThatFillAWholeBufferAreDroppedAsPossiblyTruncated() throws Exception {
        SoftPort a = fx.open(SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(0).receiveBuffers(4, 256),
                atA);
        SoftPort b = fx.open("127.0.0.3", 0, atB);
        b.send(datagram(1, 256), a.localAddress());
        b.send(datagram(2, 255), a.localAddress());
        assertThat(next(atA).tag()).isEqualTo(2);
        assertThat(a.stats().oversize()).isEqualTo(1);
    }

    @Test
    void pcapTapRecordsWhatIsSentAndReceived() throws Exception {
        Path file = dir.resolve("tap.pcap");
        try (PcapWriter w = PcapWriter.open(file)) {
            SoftPort a = fx.open(SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(0).tap(w), atA);
            SoftPort b = fx.open("127.0.0.3", 0, atB);
            b.tap(w);
            a.send(datagram(1, 40), b.localAddress());
            b.send(datagram(2, 44), a.localAddress());
            next(atB);
            next(atA);
            a.tap(null);
            b.tap(null);
            a.send(datagram(3, 40), b.localAddress());
            next(atB);
            assertThat(w.records()).isEqualTo(4); // each datagram once as sent and once as received
        }
        ByteBuffer f = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        f.position(24);
        List<String> records = new ArrayList<>();
        while (f.hasRemaining()) {
            f.position(f.position() + 8);
            int len = f.getInt();
            f.getInt();
            byte[] rec = new byte[len];
            f.get(rec);
            records.add((rec[15] & 0xFF) + ">" + (rec[19] & 0xFF) + ":" + rec[28] + "/" + (len - 28));
        }
        assertThat(records).containsExactlyInAnyOrder("2>3:1/40", "2>3:1/40", "3>2:2/44", "3>2:2/44");
    }

    static List<String> threadsNamed(String fragment) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("ibex-softroce-") && n.contains(fragment)).toList();
    }
}
