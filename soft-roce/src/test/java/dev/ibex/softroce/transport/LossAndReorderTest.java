package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.SoftRoceConfig;
import dev.ibex.softroce.net.FaultInjector;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RC reliability: 100 000 SENDs over a fabric that drops 5 % of all datagrams (requests and ACKs) and reorders
 * 2 % (held up to 1 ms), seeded so runs repeat, arrive exactly once, in order, with their contents. The test
 * thread waits on completion channels through a poller (arm, poll, wait) like an event loop, so it does not take
 * the CPU from the NIC threads.
 */
class LossAndReorderTest {
    private static final Logger LOG = LoggerFactory.getLogger(LossAndReorderTest.class);
    private static final int MESSAGES = 100_000;
    private static final int SIZE = 32;
    private static final int RQ = 1024;
    private static final int SQ = 512;
    private static final int SIGNAL_EVERY = 32;

    private Side x;
    private Side y;
    private long sent;
    private long sendsCompleted;
    private long posted;
    private long received;

    @Test
    void everyMessageArrivesExactlyOnceInOrderIntact() {
        // retry_cnt 7 retries for ever (as rxe): a starved host must not turn the scaled ACK timeout into RETRY_EXC_ERR
        try (Harness h = new Harness(Map.of(SoftRoceConfig.TIMER_SCALE, "0.015",
                SoftRoceConfig.RETRY_SEVEN_INFINITE, "true"))) {
            FaultInjector faults = h.fabric.faults();
            CompletionChannel xch = h.a.createCompletionChannel();
            CompletionChannel ych = h.b.createCompletionChannel();
            CompletionQueue xcq = h.a.createCompletionQueue(1024, xch, 0);
            CompletionQueue ycq = h.b.createCompletionQueue(2048, ych, 0);
            x = h.sideOn(h.a, 1 << 20, new QpCap(SQ, 16, 1, 1, 64), false, xcq, xcq);
            y = h.sideOn(h.b, 1 << 20, new QpCap(16, RQ, 1, 1, 0), true, ycq, ycq);
            Poller poller = h.fabric.createPoller();
            poller.register(xch, xch);
            poller.register(ych, ych);
            Harness.Params p = new Harness.Params();
            // 4.3 s, 64 ms at this scale: seven retries ride out a 450 ms stall of a loaded 2-core machine (JIT,
            // GC, scheduling). Lost NAKs make about 300 timeouts, which dominate the run time.
            p.timeout = 20;
            p.minRnrTimer = 1;
            Harness.connect(x, y, p);
            faults.onSend().drop(0.05).reorder(0.02, Duration.ofMillis(1));

            RecvBatch rb = RecvBatch.allocate(h.arena, 64, 1);
            SendBatch sb = SendBatch.allocate(h.arena, 64, 1);
            long t0 = System.nanoTime();
            long deadline = t0 + Duration.ofSeconds(90).toNanos();
            long lastProgress = System.nanoTime();
            long lastReceived = 0;
            int dumps = 0;
            while (received < MESSAGES) {
                if (received != lastReceived) {
                    lastReceived = received;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > 250_000_000 && dumps < 3) {
                    dumps++;
                    lastProgress = System.nanoTime();
                    StringBuilder sb2 = new StringBuilder("STALL at " + received + " " + Harness.describe(x.qp) + "\n");
                    Thread.getAllStackTraces().forEach((t, st) -> {
                        if (t.getName().contains("soft") || t.getName().contains("main")) {
                            sb2.append(t.getName()).append(' ').append(t.getState()).append('\n');
                            for (int i = 0; i < Math.min(12, st.length); i++) {
                                sb2.append("    ").append(st[i]).append('\n');
                            }
                        }
                    });
                    System.out.println(sb2);
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("stalled at " + received + ": " + Harness.describe(x.qp) + " / "
                            + Harness.describe(y.qp) + " / " + faults.counts());
                }
                postReceives(rb);
                postSends(sb);
                if (completions(faults) == 0) {
                    // arm, then poll again, then wait: no completion can slip through
                    xcq.requestNotify(false);
                    ycq.requestNotify(false);
                    if (completions(faults) == 0) {
                        poller.poll(5_000_000, a -> { });
                    }
                    ackEvents(xch);
                    ackEvents(ych);
                }
            }
            long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(Harness.pollAtLeast(ycq, y.wc, 1, Duration.ofMillis(100))).as("no duplicate delivery").isZero();
            FaultInjector.Counts c = faults.counts();
            long retries = ((SoftQueuePair) x.qp).retries();
            LOG.info("{} messages under 5% loss + 2% reordering in {} ms: {} datagrams dropped, {} reordered, "
                    + "{} go-back-N retries", MESSAGES, elapsedMs, c.dropped(), c.reordered(), retries);
            System.out.printf("LOSS-TEST messages=%d elapsedMs=%d dropped=%d reordered=%d retries=%d %s%n", MESSAGES,
                    elapsedMs, c.dropped(), c.reordered(), retries, Harness.describe(x.qp));
            assertThat(c.dropped()).isGreaterThan(MESSAGES / 40);
            assertThat(c.reordered()).isPositive();
            faults.reset();
            poller.close();
        }
    }

    private static void ackEvents(CompletionChannel ch) {
        CompletionQueue cq;
        while ((cq = ch.poll()) != null) {
            cq.ackEvents(1);
        }
    }

    private void postReceives(RecvBatch rb) {
        int n = 0;
        while (posted < MESSAGES && posted - received < RQ && n < rb.capacity()) {
            long slot = posted % RQ;
            rb.clear(n).wrId(n, posted).single(n, y.mr.address() + slot * SIZE, SIZE, y.mr.lkey());
            n++;
            posted++;
        }
        if (n > 0) {
            y.qp.postRecv(rb, n);
        }
    }

    private void postSends(SendBatch sb) {
        int n = 0;
        while (sent < MESSAGES && sent - sendsCompleted < SQ - SIGNAL_EVERY && n < sb.capacity()) {
            long slot = sent % 1024;
            x.buf.set(ValueLayout.JAVA_LONG, slot * SIZE, sent);
            x.buf.set(ValueLayout.JAVA_LONG, slot * SIZE + 8, sent * 0x9E3779B97F4A7C15L);
            x.buf.set(ValueLayout.JAVA_LONG, slot * SIZE + 16, ~sent);
            x.buf.set(ValueLayout.JAVA_LONG, slot * SIZE + 24, sent ^ 0x5555_5555_5555_5555L);
            boolean signal = (sent + 1) % SIGNAL_EVERY == 0 || sent == MESSAGES - 1;
            sb.clear(n).wrId(n, sent).opcode(n, WrOpcode.SEND)
                    .flags(n, SendFlags.INLINE | (signal ? SendFlags.SIGNALED : 0))
                    .single(n, x.mr.address() + slot * SIZE, SIZE, x.mr.lkey());
            n++;
            sent++;
        }
        if (n > 0) {
            x.qp.postSend(sb, n);
        }
    }

    private int completions(FaultInjector faults) {
        int total = 0;
        int k;
        while ((k = x.scq.poll(x.wc)) > 0) {
            for (int i = 0; i < k; i++) {
                assertThat(x.wc.status(i)).as("send %d (received %d): %s / %s / %s", x.wc.wrId(i), received,
                        Harness.describe(x.qp), Harness.describe(y.qp), faults.counts()).isEqualTo(WcStatus.SUCCESS);
                sendsCompleted = x.wc.wrId(i) + 1;
            }
            total += k;
        }
        while ((k = y.rcq.poll(y.wc)) > 0) {
            for (int i = 0; i < k; i++) {
                assertThat(y.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
                assertThat(y.wc.wrId(i)).as("in order").isEqualTo(received);
                assertThat(y.wc.byteLen(i)).isEqualTo(SIZE);
                long slot = received % RQ;
                long seq = y.buf.get(ValueLayout.JAVA_LONG, slot * SIZE);
                assertThat(seq).as("exactly once, in order").isEqualTo(received);
                assertThat(y.buf.get(ValueLayout.JAVA_LONG, slot * SIZE + 8)).isEqualTo(seq * 0x9E3779B97F4A7C15L);
                assertThat(y.buf.get(ValueLayout.JAVA_LONG, slot * SIZE + 16)).isEqualTo(~seq);
                assertThat(y.buf.get(ValueLayout.JAVA_LONG, slot * SIZE + 24)).isEqualTo(seq ^ 0x5555_5555_5555_5555L);
                received++;
            }
            total += k;
        }
        return total;
    }
}
