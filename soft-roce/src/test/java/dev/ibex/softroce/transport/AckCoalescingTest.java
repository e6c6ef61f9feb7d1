package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link AckDeferral}: on a loop that receives its own packets, the SENDs one batch of reads brings are acknowledged
 * with one ACK (sent after the loop's turn), every SEND still completes successfully; with a receive thread each
 * SEND that asks for an ACK gets its own. Counted on the wire (the fabric's pcap tap).
 */
class AckCoalescingTest {
    static final int SENDS = 5;
    static final int OP_SEND_ONLY = 0x04;
    static final int OP_ACKNOWLEDGE = 0x11;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "receiveOnLoop={0}")
    @ValueSource(booleans = {true, false})
    void aBatchOfSendsIsAcknowledgedOnceOnTheLoopAndOncePerSendOtherwise(boolean onLoop) throws Exception {
        Path pcap = dir.resolve("acks-" + onLoop + ".pcap");
        int xIp;
        int yIp;
        try (Harness h = new Harness(Map.of(SoftRoceConfig.PCAP, pcap.toString(),
                SoftRoceConfig.RECEIVE_ON_LOOP, Boolean.toString(onLoop)))) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = h.side(h.b, 1 << 16);
            Harness.connect(x, y, new Harness.Params());
            xIp = ((SoftDevice) h.a).addresses()[0];
            yIp = ((SoftDevice) h.b).addresses()[0];
            try (Poller poller = h.fabric.createLoopPoller()) { // a loop poller: it may receive itself
                x.qp.postSend(receivesAndSends(h, x, y, SENDS), SENDS);
                Thread.sleep(200); // on the loop: the SENDs wait in the socket, to be read in one batch

                int sent = 0;
                int received = 0;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while ((sent < SENDS || received < SENDS) && System.nanoTime() < deadline) {
                    poller.poll(1_000_000, a -> { });
                    int k = x.scq.poll(x.wc);
                    for (int i = 0; i < k; i++) {
                        assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
                    }
                    sent += k;
                    received += y.rcq.poll(y.wc);
                }
                assertThat(sent).as("SEND completions").isEqualTo(SENDS);
                assertThat(received).as("receive completions").isEqualTo(SENDS);
            }
        }
        int[] sendsAndAcks = count(pcap, xIp, yIp);
        assertThat(sendsAndAcks[0]).as("SEND packets from x").isEqualTo(SENDS);
        if (onLoop) {
            assertThat(sendsAndAcks[1]).as("ACKs from y: one for the batch").isEqualTo(1);
        } else {
            assertThat(sendsAndAcks[1]).as("ACKs from y: one per SEND").isEqualTo(SENDS);
        }
    }

    /**
     * A request and its reply on a loop: each requester builds its packet in the sending thread's {@link SegmentBatch},
     * so neither QP makes its own 4 KiB packet buffer (most connections never need one), and both complete.
     */
    @Test
    void requestersBuildInTheThreadsBatchAndMakeNoPacketBufferOfTheirOwn() throws Exception {
        try (Harness h = new Harness(Map.of(SoftRoceConfig.RECEIVE_ON_LOOP, "true"))) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = h.side(h.b, 1 << 16);
            Harness.connect(x, y, new Harness.Params());
            try (Poller poller = h.fabric.createLoopPoller()) {
                RecvBatch atY = RecvBatch.allocate(h.arena, 1, 1);
                atY.wrId(0, 1).single(0, y.mr.address(), 64, y.mr.lkey());
                y.qp.postRecv(atY, 1);
                RecvBatch atX = RecvBatch.allocate(h.arena, 1, 1);
                atX.wrId(0, 2).single(0, x.mr.address() + 4096, 64, x.mr.lkey());
                x.qp.postRecv(atX, 1);
                SendBatch request = SendBatch.allocate(h.arena, 1, 1);
                request.wrId(0, 3).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 64, x.mr.lkey());
                x.qp.postSend(request, 1);

                long deadline = System.nanoTime() + 10_000_000_000L;
                int requests = 0;
                while (requests == 0 && System.nanoTime() < deadline) {
                    poller.poll(1_000_000, a -> { });
                    requests = y.rcq.poll(y.wc);
                }
                assertThat(requests).as("the request at y").isEqualTo(1);
                SendBatch reply = SendBatch.allocate(h.arena, 1, 1);
                reply.wrId(0, 4).opcode(0, WrOpcode.SEND).single(0, y.mr.address() + 4096, 64, y.mr.lkey());
                y.qp.postSend(reply, 1);

                int replies = 0;
                int acked = 0;
                while ((replies == 0 || acked == 0) && System.nanoTime() < deadline) {
                    poller.poll(1_000_000, a -> { });
                    replies += x.rcq.poll(x.wc);
                    int k = x.scq.poll(x.wc);
                    for (int i = 0; i < k; i++) {
                        assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
                    }
                    acked += k;
                }
                assertThat(replies).as("the reply at x").isEqualTo(1);
                assertThat(acked).as("the request's completion at x (its ACK arrived)").isEqualTo(1);
                assertThat(((SoftQueuePair) x.qp).requesterOwnsPacketBuffer()).as("x's requester buffer").isFalse();
                assertThat(((SoftQueuePair) y.qp).requesterOwnsPacketBuffer()).as("y's requester buffer").isFalse();
            }
        }
    }

    /**
     * A loop that spins reading its sockets (poller.spinNanos) sends the ACKs it noted as soon as a read hands nothing
     * to the loop, not when the spin ends: an RDMA WRITE makes no completion at the responder, and its requester waits
     * for the ACK (before, it waited out the whole spin — here 3 s — or its retransmission timer).
     */
    @Test
    void aSpinningLoopSendsTheAcksItNotedWithoutWaitingForItsSpinToEnd() throws Exception {
        try (Harness h = new Harness(Map.of(SoftRoceConfig.RECEIVE_ON_LOOP, "true",
                SoftRoceConfig.POLLER_SPIN_NANOS, Long.toString(3_000_000_000L)))) {
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = h.side(h.b, 1 << 16);
            Harness.Params params = new Harness.Params();
            params.timeout = 24; // 6.9 s at the harness's timer scale: no retransmission gets the ACK sent instead
            Harness.connect(x, y, params);
            try (Poller poller = h.fabric.createLoopPoller()) {
                java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
                Thread loop = Thread.ofPlatform().name("spinning-loop").start(() -> {
                    while (!stop.get()) {
                        poller.poll(5_000_000_000L, a -> { }); // x's CQ is not registered: nothing is handed back
                    }
                });
                try {
                    Thread.sleep(100); // the loop spins
                    SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
                    sb.wrId(0, 7).opcode(0, WrOpcode.RDMA_WRITE).flags(0, dev.ibex.cm.spi.SendFlags.SIGNALED)
                            .rdma(0, y.mr.address(), y.mr.rkey()).single(0, x.mr.address(), 64, x.mr.lkey());
                    long start = System.nanoTime();
                    x.qp.postSend(sb, 1);
                    int k = 0;
                    while (k == 0 && System.nanoTime() - start < 10_000_000_000L) {
                        k = x.scq.poll(x.wc);
                        Thread.onSpinWait();
                    }
                    long tookMillis = (System.nanoTime() - start) / 1_000_000;
                    assertThat(k).as("the WRITE's completion").isEqualTo(1);
                    assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
                    assertThat(tookMillis).as("ms until the ACK came (the spin lasts 3,000)").isLessThan(1_500);
                } finally {
                    stop.set(true);
                    poller.wakeup();
                    loop.join(10_000);
                }
            }
        }
    }

    /**
     * SENDs posted together reach a loop that hands each completed message to its application (y's receive CQ is one
     * of the poller's sources), so it reads them a message per turn. While the application answers none (an RSocket
     * frame split over several buffers), the ACKs wait for the rest of the burst and one ACK covers it; before, each
     * turn sent one. Where it answers each message, each ACK leaves at the next turn, after the answer, as before.
     * (A longer burst draws an ACK per 4 messages: after 4 turns behind, the reception reads in batches again.)
     */
    @ParameterizedTest(name = "answered={0}")
    @ValueSource(booleans = {false, true})
    void aBurstNobodyAnswersYetIsAcknowledgedOnce(boolean answered) throws Exception {
        Path pcap = dir.resolve("burst-" + answered + ".pcap");
        int burst = 3; // the reception reads a message per turn for up to 3 turns, then in batches (a stream)
        int xIp;
        int yIp;
        try (Harness h = new Harness(Map.of(SoftRoceConfig.PCAP, pcap.toString(),
                SoftRoceConfig.RECEIVE_ON_LOOP, "true"))) {
            CompletionChannel ych = h.b.createCompletionChannel();
            CompletionQueue yrcq = h.b.createCompletionQueue(64, ych, 0);
            Harness.Side x = h.side(h.a, 1 << 16);
            Harness.Side y = h.sideOn(h.b, 1 << 16, new QpCap(64, 64, 1, 1, 0), true,
                    h.b.createCompletionQueue(64, null, 0), yrcq);
            Harness.connect(x, y, new Harness.Params());
            xIp = ((SoftDevice) h.a).addresses()[0];
            yIp = ((SoftDevice) h.b).addresses()[0];
            try (Poller poller = h.fabric.createLoopPoller()) {
                poller.register(ych, ych);
                SendBatch sb = receivesAndSends(h, x, y, burst);
                RecvBatch answers = RecvBatch.allocate(h.arena, burst, 1);
                for (int i = 0; i < burst; i++) {
                    answers.wrId(i, 200 + i).single(i, x.mr.address() + 4096 + 64L * i, 64, x.mr.lkey());
                }
                x.qp.postRecv(answers, burst);
                yrcq.requestNotify(false);
                x.qp.postSend(sb, burst);
                Thread.sleep(200); // the burst waits in the socket: the loop reads it a message per turn

                SendBatch answer = SendBatch.allocate(h.arena, 1, 1);
                int[] received = {0};
                int sent = 0;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while ((sent < burst || received[0] < burst) && System.nanoTime() < deadline) {
                    poller.poll(1_000_000, a -> {
                        CompletionQueue cq;
                        while ((cq = ych.poll()) != null) {
                            cq.ackEvents(1);
                        }
                        int k = yrcq.poll(y.wc);
                        for (int i = 0; i < k && answered; i++) {
                            answer.wrId(0, 300 + received[0] + i).opcode(0, WrOpcode.SEND)
                                    .single(0, y.mr.address() + 8192, 64, y.mr.lkey());
                            y.qp.postSend(answer, 1);
                        }
                        received[0] += k;
                        yrcq.requestNotify(false);
                    });
                    int k = x.scq.poll(x.wc);
                    for (int i = 0; i < k; i++) {
                        assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
                    }
                    sent += k;
                }
                assertThat(sent).as("SEND completions").isEqualTo(burst);
                assertThat(received[0]).as("receive completions").isEqualTo(burst);
                poller.deregister(ych);
            }
        }
        int[] sendsAndAcks = count(pcap, xIp, yIp);
        assertThat(sendsAndAcks[0]).as("SEND packets from x").isEqualTo(burst);
        if (answered) {
            assertThat(sendsAndAcks[1]).as("ACKs from y: one per answered message").isEqualTo(burst);
        } else {
            assertThat(sendsAndAcks[1]).as("ACKs from y: one for the burst").isEqualTo(1);
        }
    }

    /** Posts {@code n} receives of 64 B at {@code y}; returns {@code n} SENDs of 64 B from {@code x}, to be posted. */
    private static SendBatch receivesAndSends(Harness h, Harness.Side x, Harness.Side y, int n) {
        RecvBatch rb = RecvBatch.allocate(h.arena, n, 1);
        SendBatch sb = SendBatch.allocate(h.arena, n, 1);
        for (int i = 0; i < n; i++) {
            rb.wrId(i, 100 + i).single(i, y.mr.address() + 64L * i, 64, y.mr.lkey());
            sb.wrId(i, i).opcode(i, WrOpcode.SEND).single(i, x.mr.address() + 64L * i, 64, x.mr.lkey());
        }
        y.qp.postRecv(rb, n);
        return sb;
    }

    /** SEND_ONLY packets sent by {@code x} and ACKs sent by {@code y}; the tap records each datagram on send. */
    static int[] count(Path pcap, int x, int y) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(pcap));
        b.order(b.getInt(0) == 0xa1b23c4d ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        int at = 24;
        int sends = 0;
        int acks = 0;
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (at + 16 <= b.limit()) {
            int len = b.getInt(at + 8);
            int ip = at + 16;
            int src = b.order(ByteOrder.BIG_ENDIAN).getInt(ip + 12);
            int dst = b.getInt(ip + 16);
            int opcode = b.get(ip + 28) & 0xFF;
            int psn = b.getInt(ip + 28 + 8) & 0xFFFFFF;
            b.order(b.getInt(0) == 0xa1b23c4d ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            // sent and received datagrams are both recorded: count each (source, opcode, PSN) once
            if (seen.add(src + "/" + dst + "/" + opcode + "/" + psn)) {
                if (src == x && opcode == OP_SEND_ONLY) {
                    sends++;
                } else if (src == y && opcode == OP_ACKNOWLEDGE) {
                    acks++;
                }
            }
            at = ip + len;
        }
        return new int[] {sends, acks};
    }
}
