package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.PortFixture.ip;
import static dev.ibex.softroce.net.PortFixture.next;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.softroce.net.PortFixture.Received;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SoftPort#sendSegments}: runs of datagrams in one system call (UDP segmentation offload, {@link GsoSocket})
 * where the port has it, one send each where it cannot be used.
 */
class SegmentedSendTest {
    private final PortFixture fx = new PortFixture();
    private final LinkedBlockingQueue<Received> atA = new LinkedBlockingQueue<>(), atB = new LinkedBlockingQueue<>();
    private SoftPort a, b;

    @BeforeEach
    void open() throws Exception {
        a = fx.open("127.0.0.2", 0, atA);
        b = fx.open("127.0.0.3", 0, atB);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    /** {@code count} datagrams of {@code size} bytes end to end (the last {@code last} bytes), each tagged. */
    private static ByteBuffer run(int count, int size, int last) {
        ByteBuffer buf = ByteBuffer.allocateDirect((count - 1) * size + last);
        for (int i = 0; i < buf.capacity(); i++) {
            buf.put(i, (byte) (i % size == 0 ? i / size : i * 7));
        }
        return buf;
    }

    @Test
    void aRunArrivesAsItsDatagramsFromThePortsAddressInOneCall() throws Exception {
        assumeThat(GsoSocket.available()).as("UDP segmentation offload needs Linux and native access").isTrue();
        assertThat(a.segmenting()).isTrue();
        ByteBuffer datagrams = run(20, 120, 48);
        a.sendSegments(datagrams, 120, ip("127.0.0.3"), new InetSocketAddress("127.0.0.3", b.udpPort()));

        for (int i = 0; i < 20; i++) {
            Received r = next(atB);
            assertThat(r.tag()).isEqualTo(i);
            assertThat(r.data()).hasSize(i == 19 ? 48 : 120);
            assertThat(r.data()[1]).isEqualTo((byte) ((i * 120 + 1) * 7));
            // the offload socket shares the port's address and port: the peer sees the port it checks
            assertThat(r.srcIp()).isEqualTo(ip("127.0.0.2"));
            assertThat(r.srcPort()).isEqualTo(a.udpPort());
        }
        assertThat(a.stats().segmentedSends()).isEqualTo(1);
        assertThat(a.stats().sent()).isEqualTo(20);
        assertThat(datagrams.position()).isZero();
        assertThat(datagrams.limit()).isEqualTo(datagrams.capacity());
    }

    @Test
    void everyDatagramToThePortReachesItsChannelNotTheSendOnlySocket() throws Exception {
        assumeThat(GsoSocket.available()).as("UDP segmentation offload needs Linux and native access").isTrue();
        // without the steering program the SO_REUSEPORT group would spread these over both sockets by source port
        int n = 64;
        DatagramChannel[] senders = new DatagramChannel[n];
        try {
            for (int i = 0; i < n; i++) {
                senders[i] = DatagramChannel.open(StandardProtocolFamily.INET);
                senders[i].bind(new InetSocketAddress("127.0.0.3", 0));
                senders[i].send(ByteBuffer.wrap(new byte[] {(byte) i, 1, 2, 3}),
                        new InetSocketAddress("127.0.0.2", a.udpPort()));
            }
            for (int i = 0; i < n; i++) {
                Received r = atA.poll(5, TimeUnit.SECONDS);
                assertThat(r).as("datagram %d of %d", i, n).isNotNull();
            }
        } finally {
            for (DatagramChannel s : senders) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aPortCannotShareAnAddressAndPortThatIsInUse() throws Exception {
        // the reuseport group must not let a second fabric (or anything else) in beside the first
        assertThatThrownBy(() -> fx.open("127.0.0.2", a.udpPort(), new LinkedBlockingQueue<>()))
                .isInstanceOf(BindException.class);
        try (DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET)) {
            assertThatThrownBy(() -> other.bind(new InetSocketAddress("127.0.0.2", a.udpPort())))
                    .isInstanceOf(BindException.class);
        }
    }

    @Test
    void aClosedPortFreesItsAddressForTheNextOne() throws Exception {
        int port = a.udpPort();
        a.close();
        SoftPort again = fx.open("127.0.0.2", port, atA);
        assertThat(again.udpPort()).isEqualTo(port);
    }

    @Test
    void withAFaultActiveEachDatagramGoesThroughTheFaultsOneByOne() throws Exception {
        FaultInjector faults = new FaultInjector(1);
        SoftPort c = fx.open(SoftPort.builder(InetAddress.getByName("127.0.0.4")).udpPort(0).faults(faults), atA);
        // drop the odd-tagged datagrams: only one send per datagram lets the rule see each of them
        faults.onSend().dropIf((srcIp, srcPort, dstIp, dstPort, payload, length) ->
                (payload.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) & 1) == 1);
        c.sendSegments(run(10, 100, 100), 100, ip("127.0.0.3"), new InetSocketAddress("127.0.0.3", b.udpPort()));

        await().atMost(Duration.ofSeconds(5)).until(() -> atB.size() == 5);
        assertThat(c.stats().segmentedSends()).isZero();
        assertThat(faults.counts().dropped()).isEqualTo(5);
        assertThat(atB).extracting(Received::tag).containsExactly(0, 2, 4, 6, 8);
    }

    @Test
    void aHeapBufferOrASingleDatagramIsSentWithoutOffload() throws Exception {
        InetSocketAddress to = new InetSocketAddress("127.0.0.3", b.udpPort());
        ByteBuffer heap = ByteBuffer.allocate(300);
        heap.put(0, (byte) 0).put(100, (byte) 1).put(200, (byte) 2);
        a.sendSegments(heap, 100, ip("127.0.0.3"), to);
        a.sendSegments(run(1, 80, 80), 80, ip("127.0.0.3"), to);

        assertThat(next(atB).tag()).isEqualTo(0);
        assertThat(next(atB).tag()).isEqualTo(1);
        assertThat(next(atB).tag()).isEqualTo(2);
        assertThat(next(atB).data()).hasSize(80);
        assertThat(a.stats().segmentedSends()).isZero();
        assertThat(a.stats().sent()).isEqualTo(4);
    }
}
