package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.PortFixture.datagram;
import static dev.ibex.softroce.net.PortFixture.next;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SoftPort#lendReception}: an event loop takes a port's socket from its receive thread (run to completion)
 * and gives it back; nothing is lost across the hand-overs and only the borrower reads while it has the socket.
 */
class ReceptionLendingTest {
    final PortFixture fx = new PortFixture();
    final LinkedBlockingQueue<PortFixture.Received> got = new LinkedBlockingQueue<>();

    @AfterEach
    void closePorts() {
        fx.close();
    }

    @Test
    void aLentSocketIsReadOnlyByItsBorrowerOnItsThreadAndTheReceiveThreadReadsAgainOnceItIsBack() throws Exception {
        SoftPort port = fx.open("127.0.0.2", 0, got);
        try (DatagramChannel peer = DatagramChannel.open()) {
            peer.bind(new InetSocketAddress("127.0.0.3", 0));
            InetSocketAddress to = new InetSocketAddress("127.0.0.2", port.udpPort());

            peer.send(datagram(1, 40), to);
            assertThat(next(got).thread()).startsWith("ibex-softroce-rx-127.0.0.2:");
            assertThat(receiveThreads()).isEqualTo(1);

            DatagramChannel lent = port.lendReception();
            assertThat(lent.isBlocking()).isFalse();
            assertThat(receiveThreads()).as("the receive thread ended").isZero();
            assertThatThrownBy(port::lendReception).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lent already");

            // the lending's nudge, as the borrower finds it when the receive thread ended before reading it: no
            // packet, and not counted as one (it was: 4 datagrams read for 3)
            lent.send(java.nio.ByteBuffer.allocate(0), lent.getLocalAddress());
            for (int tag = 2; tag <= 4; tag++) {
                peer.send(datagram(tag, 40), to);
            }
            Thread.sleep(200);
            assertThat(got).as("nobody reads a lent socket but its borrower").isEmpty();
            SoftPort.Reader reader = port.newReader();
            int read = 0;
            for (int i = 0; i < 50 && read < 3; i++) {
                read += port.receiveAvailable(reader, 2); // at most 2 per call
                Thread.sleep(10);
            }
            assertThat(read).isEqualTo(3);
            assertThat(port.receiveAvailable(reader, 2)).as("empty: returns at once").isZero();
            for (int tag = 2; tag <= 4; tag++) {
                PortFixture.Received r = next(got);
                assertThat(r.tag()).isEqualTo(tag);
                assertThat(r.thread()).isEqualTo(Thread.currentThread().getName());
            }
            reader.release();

            port.reclaimReception();
            assertThat(lent.isBlocking()).isTrue();
            SoftPort.Reader late = port.newReader();
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> port.receiveAvailable(late, 2),
                    "a borrower that reads after the socket was taken back must not block in its receive");
            late.release();
            peer.send(datagram(5, 40), to);
            PortFixture.Received r = next(got);
            assertThat(r.tag()).isEqualTo(5);
            assertThat(r.thread()).startsWith("ibex-softroce-rx-127.0.0.2:");
            assertThat(port.stats().toString()).isNotEmpty();
        }
    }

    @Test
    void aClosedPortCannotBeLentAndReclaimingItIsANoOp() throws Exception {
        SoftPort port = fx.open("127.0.0.2", 0, got);
        port.lendReception();
        port.close();
        port.reclaimReception(); // no thread is started for a closed port
        assertThat(receiveThreads()).isZero();
        assertThatThrownBy(port::lendReception).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    private static long receiveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("ibex-softroce-rx-127.0.0.2:") && !t.getName().endsWith("groups"))
                .filter(Thread::isAlive).count();
    }
}
