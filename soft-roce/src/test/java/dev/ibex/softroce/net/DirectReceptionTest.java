package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.PortFixture.datagram;
import static dev.ibex.softroce.net.PortFixture.next;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SoftPort#receiveDirectly}: a loop that reads one port alone reads it through a socket of its own and sleeps
 * in the read; nothing is lost or reordered across the switch and back, and every wait ends — for a datagram, a
 * nudge, its timeout or the port's close.
 */
class DirectReceptionTest {
    final PortFixture fx = new PortFixture();
    final LinkedBlockingQueue<PortFixture.Received> got = new LinkedBlockingQueue<>();
    SoftPort port;
    DatagramChannel peer;
    InetSocketAddress to;

    @BeforeEach
    void open() throws Exception {
        Assumptions.assumeTrue(ReceiveSocket.available(),
                "direct reception needs Linux (x86-64/AArch64) and --enable-native-access for soft-roce");
        port = fx.open("127.0.0.2", 0, got);
        Assumptions.assumeTrue(port.segmenting(), "the kernel refused the offload socket's group here");
        peer = DatagramChannel.open();
        peer.bind(new InetSocketAddress("127.0.0.3", 0));
        to = new InetSocketAddress("127.0.0.2", port.udpPort());
    }

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
        fx.close();
    }

    @Test
    void whatTheChannelHeldIsReadFirstThenTheDirectSocketInOrderAndTheReceiveThreadReadsAgainOnceReclaimed()
            throws Exception {
        assertThatThrownBy(port::receiveDirectly).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not lent");
        port.lendReception();
        peer.send(datagram(1, 40), to);
        peer.send(datagram(2, 40), to);
        Thread.sleep(50); // in the channel's queue before the switch
        assertThat(port.receiveDirectly()).isTrue();
        assertThat(port.receiveDirectly()).as("idempotent").isTrue();
        peer.send(datagram(3, 40), to);
        peer.send(datagram(4, 40), to);
        Thread.sleep(50);
        SoftPort.Reader reader = port.newReader();
        assertThat(port.receiveAvailable(reader, 64)).isEqualTo(4);
        for (int tag = 1; tag <= 4; tag++) {
            PortFixture.Received r = next(got);
            assertThat(r.tag()).isEqualTo(tag);
            assertThat(r.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(r.srcIp()).as("the sender's address, from either socket").isEqualTo(PortFixture.ip("127.0.0.3"));
            assertThat(r.srcPort()).isEqualTo(((InetSocketAddress) peer.getLocalAddress()).getPort());
            assertThat(r.dstPort()).isEqualTo(port.udpPort());
        }
        assertThat(port.receiveAvailable(reader, 64)).as("empty: returns at once").isZero();

        peer.send(datagram(5, 40), to);
        assertThat(port.receiveWaiting(reader, TimeUnit.SECONDS.toNanos(5))).as("read, there already or slept for")
                .isIn(1, SoftPort.WAITED);
        assertThat(next(got).tag()).isEqualTo(5);
        reader.release();

        port.reclaimReception();
        peer.send(datagram(6, 40), to);
        PortFixture.Received r = next(got);
        assertThat(r.tag()).as("steered back to the channel").isEqualTo(6);
        assertThat(r.thread()).startsWith("ibex-softroce-rx-127.0.0.2:");
        assertThat(port.stats().received()).as("the nudges and wake-ups are not packets").isEqualTo(6);
    }

    @Test
    void aWaitEndsAtItsTimeoutAndAShorterOneAfterALongerIsNotLate() {
        port.lendReception();
        assertThat(port.receiveDirectly()).isTrue();
        SoftPort.Reader reader = port.newReader();
        long t0 = System.nanoTime();
        assertThat(port.receiveWaiting(reader, TimeUnit.MILLISECONDS.toNanos(300))).isZero();
        long first = System.nanoTime() - t0;
        assertThat(first).as("ends by its timeout").isLessThan(TimeUnit.MILLISECONDS.toNanos(1_000));
        t0 = System.nanoTime();
        assertThat(port.receiveWaiting(reader, TimeUnit.MILLISECONDS.toNanos(20))).isZero();
        assertThat(System.nanoTime() - t0).as("the timeout set for 300 ms does not hold a 20 ms wait")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(150));
        reader.release();
    }

    /**
     * A loop timer shorter than the kernel's scheduler tick: the read's own timeout ({@code SO_RCVTIMEO}) is kept in
     * ticks, and a wait of 500 us lasted 8 ms (HZ 250) — a 200 us loop timer fired 40 times late. The median of 21
     * such waits must be nearer its deadline than the next tick's (a loaded machine may stretch a few).
     */
    @Test
    void aShortTimedWaitEndsNearItsDeadlineNotAtTheNextSchedulerTicks() {
        port.lendReception();
        assertThat(port.receiveDirectly()).isTrue();
        SoftPort.Reader reader = port.newReader();
        long[] took = new long[21];
        for (int i = 0; i < took.length; i++) {
            long t0 = System.nanoTime();
            assertThat(port.receiveWaiting(reader, TimeUnit.MICROSECONDS.toNanos(500))).isZero();
            took[i] = System.nanoTime() - t0;
        }
        java.util.Arrays.sort(took);
        assertThat(took[0]).as("never early: the shortest of the waits").isGreaterThanOrEqualTo(
                TimeUnit.MICROSECONDS.toNanos(450));
        assertThat(took[took.length / 2]).as("the median wait of 500 us").isLessThan(TimeUnit.MILLISECONDS.toNanos(3));
        reader.release();
    }

    /** A timeval of 0 is "no timeout": a wait under a microsecond used to be set as that, and slept until a datagram. */
    @Test
    void aWaitShorterThanAMicrosecondStillEnds() {
        port.lendReception();
        assertThat(port.receiveDirectly()).isTrue();
        SoftPort.Reader reader = port.newReader();
        for (long wait : new long[] {1, 700, 1_000, 1_023}) {
            CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> port.receiveWaiting(reader, wait));
            assertThat(waiting).as("a wait of " + wait + " ns").succeedsWithin(Duration.ofSeconds(5))
                    .isEqualTo(0);
        }
        reader.release();
    }

    @Test
    void aReadSaysWhetherItSleptForItsDatagram() throws Exception {
        port.lendReception();
        assertThat(port.receiveDirectly()).isTrue();
        SoftPort.Reader reader = port.newReader();
        CompletableFuture<Void> later = CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(200);
                peer.send(datagram(7, 40), to);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(port.receiveWaiting(reader, TimeUnit.SECONDS.toNanos(5)))
                .as("slept 200 ms for it: the socket was empty, the loop keeps up").isEqualTo(SoftPort.WAITED);
        later.get(5, TimeUnit.SECONDS);
        assertThat(next(got).tag()).isEqualTo(7);
        reader.release();
    }

    /**
     * How late the reader woke for its datagram (what an idle spin would not have had to wait, {@code IdleSpin}): known
     * from the datagram's receive timestamp once the first ask turned the socket's timestamps on, never more than the
     * read took, and leaving at least the time until the datagram was sent.
     */
    @Test
    void aReadThatSleptSaysHowLateItWokeForItsDatagram() throws Exception {
        port.lendReception();
        assertThat(port.receiveDirectly()).isTrue();
        SoftPort.Reader reader = port.newReader();
        assertThat(port.receiveAvailable(reader, 1)).isZero();
        assertThat(port.wakeLagNanos()).as("the last read did not sleep").isEqualTo(-1);
        assertThat(port.receiveWaiting(reader, TimeUnit.MILLISECONDS.toNanos(5))).isZero();
        assertThat(port.wakeLagNanos()).as("it slept and read nothing (its timeout)").isZero();
        assertThat(port.receiveWaiting(reader, sentIn(20, 1))).isEqualTo(SoftPort.WAITED);
        assertThat(port.wakeLagNanos()).as("the first ask turns the timestamps on; this datagram has none")
                .isGreaterThanOrEqualTo(0);
        long t0 = System.nanoTime();
        assertThat(port.receiveWaiting(reader, sentIn(100, 2))).isEqualTo(SoftPort.WAITED);
        long took = System.nanoTime() - t0;
        long lag = port.wakeLagNanos();
        assertThat(lag).as("known from the datagram's receive timestamp").isPositive().isLessThan(took);
        assertThat(took - lag).as("what is left: the wait until the datagram came, sent 100 ms in")
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(90));
        assertThat(next(got).tag()).isEqualTo(1);
        assertThat(next(got).tag()).isEqualTo(2);
        reader.release();
    }

    /** Sends datagram {@code tag} {@code millis} ms from now, from another thread; returns a wait long enough for it. */
    private long sentIn(long millis, int tag) {
        CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(millis);
                peer.send(datagram(tag, 40), to);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return TimeUnit.SECONDS.toNanos(10);
    }

    @Test
    void aNudgeFromAnotherThreadEndsAWaitWithoutATimeout() throws Exception {
        SoftPort.Reader reader = port.newReader();
        CompletableFuture<Integer> waiting = waitingForEver(reader);
        port.nudge();
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(0);
        assertThat(got).as("a nudge is no packet").isEmpty();
        reader.release();
    }

    @Test
    void closingThePortEndsAWaitInProgress() throws Exception {
        SoftPort.Reader reader = port.newReader();
        CompletableFuture<Integer> waiting = waitingForEver(reader);
        long t0 = System.nanoTime();
        port.close();
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(0);
        assertThat(System.nanoTime() - t0).as("close woke the read rather than waiting its bound out")
                .isLessThan(TimeUnit.SECONDS.toNanos(1));
        t0 = System.nanoTime();
        assertThat(port.receiveWaiting(reader, -1)).as("a closed port's wait has no socket to sleep in").isZero();
        assertThat(System.nanoTime() - t0).as("and sleeps briefly instead, rather than for ever")
                .isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    /** Lends the port, reads it directly, and waits without a timeout on another thread (not done after 100 ms). */
    private CompletableFuture<Integer> waitingForEver(SoftPort.Reader reader) throws InterruptedException {
        port.lendReception();
        assertThat(port.receiveDirectly()).isTrue();
        CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> port.receiveWaiting(reader, -1));
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        return waiting;
    }

    @Test
    void offWhenTheSettingSaysSo() {
        String key = ReceiveSocket.PROPERTY;
        String before = System.getProperty(key);
        System.setProperty(key, "false");
        try {
            port.lendReception();
            assertThat(port.receiveDirectly()).isFalse();
            assertThat(port.receiveWaiting(port.newReader(), 1_000_000)).as("not direct: reads nothing").isZero();
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }
}
