package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AckDeferral}'s hold across turns: a spinning loop (here driven by {@code poll(0)}, which never blocks) holds
 * the ACK of SENDs its side answered, up to {@link AckDeferral#MAX_HELD_REQUESTS} requests and the hold time; a SEND
 * nobody answered and a WRITE are acknowledged at the next poll; a blocking poll sends every held ACK. Each test
 * fails without the rule it names. The retransmission timeout is 6.9 s, so no retransmission gets an ACK sent instead.
 */
class AckHoldTest {
    static final long LONG_HOLD = 5_000_000_000L;
    static final long DEADLINE = 3_000_000_000L;

    @TempDir
    Path dir;

    private Harness harness(long holdNanos, Path pcap) {
        Map<String, String> p = new java.util.HashMap<>(Map.of(SoftRoceConfig.RECEIVE_ON_LOOP, "true",
                SoftRoceConfig.POLLER_SPIN_NANOS, "1000000",
                SoftRoceConfig.POLLER_ACK_HOLD_NANOS, Long.toString(holdNanos)));
        if (pcap != null) {
            p.put(SoftRoceConfig.PCAP, pcap.toString());
        }
        return new Harness(p);
    }

    /** {@code x}'s peer on device b, connected with a 6.9 s retransmission timeout (the harness's timer scale). */
    private static Harness.Side connectedPeer(Harness h, Harness.Side x) {
        Harness.Side y = h.side(h.b, 1 << 16);
        Harness.Params params = new Harness.Params();
        params.timeout = 24;
        Harness.connect(x, y, params);
        return y;
    }

    /** Posts one signaled 64 B SEND from {@code s}'s buffer at {@code offset}. */
    private static void send(Harness h, Harness.Side s, long wrId, long offset) {
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        sb.wrId(0, wrId).opcode(0, WrOpcode.SEND).single(0, s.mr.address() + offset, 64, s.mr.lkey());
        s.qp.postSend(sb, 1);
    }

    @Test
    void aPingPongOnASpinningLoopDrawsOneAckPerEightRoundTripsAndEveryAckBeforeTheLoopBlocks() throws Exception {
        int rounds = 16;
        Path pcap = dir.resolve("hold.pcap");
        int xIp;
        int yIp;
        int sentAtXWhileSpinning = 0;
        try (Harness h = harness(LONG_HOLD, pcap)) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = connectedPeer(h, x);
            xIp = ((SoftDevice) h.a).addresses()[0];
            yIp = ((SoftDevice) h.b).addresses()[0];
            try (Poller poller = h.fabric.createLoopPoller()) {
                postReceives(h, x, rounds, 4096);
                postReceives(h, y, rounds, 0);
                int sentAtY = 0;
                for (int i = 0; i < rounds; i++) {
                    send(h, x, i, 8192);
                    spinUntil(poller, y.rcq, y, 1);
                    send(h, y, 100 + i, 8192);
                    spinUntil(poller, x.rcq, x, 1);
                    sentAtXWhileSpinning += successes(x.scq, x);
                    sentAtY += successes(y.scq, y);
                }
                assertThat(sentAtXWhileSpinning).as("x's SENDs acknowledged while the loop only spun (the 8th ACKs 8)")
                        .isBetween(8, rounds);

                int sentAtX = sentAtXWhileSpinning;
                long deadline = System.nanoTime() + DEADLINE;
                while ((sentAtX < rounds || sentAtY < rounds) && System.nanoTime() < deadline) {
                    poller.poll(1_000_000, a -> { }); // a poll that may block: nothing is held past it
                    sentAtX += successes(x.scq, x);
                    sentAtY += successes(y.scq, y);
                }
                assertThat(sentAtX).as("x's SEND completions once the loop blocked").isEqualTo(rounds);
                assertThat(sentAtY).as("y's SEND completions once the loop blocked").isEqualTo(rounds);
            }
        }
        int[] fromY = AckCoalescingTest.count(pcap, xIp, yIp);
        int[] fromX = AckCoalescingTest.count(pcap, yIp, xIp);
        assertThat(fromY[0]).as("SENDs from x").isEqualTo(rounds);
        assertThat(fromY[1]).as("ACKs from y for 16 requests (one per request without the hold)").isBetween(2, 3);
        assertThat(fromX[1]).as("ACKs from x for 16 replies").isBetween(2, 3);
    }

    @Test
    void aSendNobodyAnswersIsAcknowledgedAtTheNextPoll() throws Exception {
        try (Harness h = harness(LONG_HOLD, null)) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = connectedPeer(h, x);
            try (Poller poller = h.fabric.createLoopPoller()) {
                postReceives(h, y, 1, 0);
                send(h, x, 1, 0);
                spinUntil(poller, x.scq, x, 1); // only polls that never block: the ACK was not held
                assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            }
        }
    }

    @Test
    void aWriteIsAcknowledgedAtTheNextPollEvenWhenItsResponderAnswers() throws Exception {
        try (Harness h = harness(LONG_HOLD, null)) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = connectedPeer(h, x);
            try (Poller poller = h.fabric.createLoopPoller()) {
                postReceives(h, y, 1, 0);
                postReceives(h, x, 1, 4096);
                SendBatch write = SendBatch.allocate(h.arena, 1, 1);
                write.wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE_WITH_IMM).immData(0, 7)
                        .rdma(0, y.mr.address() + 1024, y.mr.rkey()).single(0, x.mr.address(), 64, x.mr.lkey());
                x.qp.postSend(write, 1);
                spinUntil(poller, y.rcq, y, 1);
                send(h, y, 2, 8192); // y answers: a SEND's ACK would now be held
                spinUntil(poller, x.scq, x, 1);
                assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            }
        }
    }

    @Test
    void aHeldAckLeavesWhenItsHoldTimeIsUpWhileTheLoopKeepsSpinning() throws Exception {
        long hold = 200_000_000L;
        try (Harness h = harness(hold, null)) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = connectedPeer(h, x);
            try (Poller poller = h.fabric.createLoopPoller()) {
                postReceives(h, y, 1, 0);
                postReceives(h, x, 1, 4096);
                long start = System.nanoTime();
                send(h, x, 1, 0);
                spinUntil(poller, y.rcq, y, 1);
                send(h, y, 2, 8192);
                spinUntil(poller, x.scq, x, 1);
                long tookNanos = System.nanoTime() - start;
                assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
                assertThat(tookNanos / 1_000_000).as("ms until the answered request's ACK came (held 200 ms)")
                        .isGreaterThanOrEqualTo(hold / 1_000_000);
            }
        }
    }

    /**
     * A requester that waits for each SEND's completion before it sends the next (here x) would wait the hold on every
     * request its peer answers. It waits it rarely: the hold ran out while x sent nothing for most of it, so y's
     * responder acknowledges x's next 8 requests at the next poll, and after the next such stall the next 16: 2 waits
     * in 26 round trips (without the rule, 26).
     */
    @Test
    void aRequesterThatWaitsForEachCompletionWaitsTheHoldEverMoreRarely() throws Exception {
        long hold = 100_000_000L;
        int rounds = 1 + NotedAck.FIRST_HOLD_PAUSE + 1 + 2 * NotedAck.FIRST_HOLD_PAUSE;
        try (Harness h = harness(hold, null)) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = connectedPeer(h, x);
            try (Poller poller = h.fabric.createLoopPoller()) {
                postReceives(h, y, rounds, 0);
                postReceives(h, x, rounds, 4096);
                java.util.List<Integer> held = new java.util.ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    long start = System.nanoTime();
                    send(h, x, i, 8192);
                    spinUntil(poller, y.rcq, y, 1);
                    send(h, y, 100 + i, 8192); // y answers at once: its ACK of x's SEND may be held
                    spinUntil(poller, x.scq, x, 1); // x waits for its SEND's completion before the next
                    spinUntil(poller, x.rcq, x, 1);
                    successes(y.scq, y);
                    if (System.nanoTime() - start >= hold / 2) {
                        held.add(i + 1);
                    }
                }
                assertThat(held).as("the rounds whose ACK was held (the hold is 100 ms)")
                        .containsExactly(1, 2 + NotedAck.FIRST_HOLD_PAUSE);
                assertThat(((SoftQueuePair) y.qp).responder().ackHoldStalls()).as("stalls seen by y's responder")
                        .isEqualTo(2);
            }
        }
    }

    @Test
    void theHoldIs50MicrosecondsByDefaultAndANegativeOneIsRefusedByName() {
        assertThat(SoftRoceConfig.from(dev.ibex.cm.spi.ProviderConfig.of(Map.of())).pollerAckHoldNanos())
                .isEqualTo(SoftRoceConfig.DEFAULT_POLLER_ACK_HOLD_NANOS).isEqualTo(50_000);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> SoftRoceConfig.from(dev.ibex.cm.spi.ProviderConfig.of(
                        Map.of(SoftRoceConfig.POLLER_ACK_HOLD_NANOS, "-1"))))
                .withMessageContaining(SoftRoceConfig.POLLER_ACK_HOLD_NANOS);
    }

    private static void postReceives(Harness h, Harness.Side s, int n, long offset) {
        RecvBatch rb = RecvBatch.allocate(h.arena, n, 1);
        for (int i = 0; i < n; i++) {
            rb.wrId(i, 1000 + i).single(i, s.mr.address() + offset + 64L * i, 64, s.mr.lkey());
        }
        s.qp.postRecv(rb, n);
    }

    /** Polls without ever blocking (a spinning loop's turns) until {@code cq} yields {@code n} successes. */
    private static void spinUntil(Poller poller, CompletionQueue cq, Harness.Side s, int n) {
        long deadline = System.nanoTime() + DEADLINE;
        int got = 0;
        while (got < n && System.nanoTime() < deadline) {
            poller.poll(0, a -> { });
            got += successes(cq, s);
        }
        assertThat(got).as("completions while the loop only spun").isEqualTo(n);
    }

    private static int successes(CompletionQueue cq, Harness.Side s) {
        int k = cq.poll(s.wc);
        for (int i = 0; i < k; i++) {
            assertThat(s.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
        }
        return k;
    }
}
