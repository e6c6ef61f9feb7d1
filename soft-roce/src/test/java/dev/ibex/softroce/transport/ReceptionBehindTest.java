package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceptionProgress}: a loop that reads the sockets and falls behind them (busy elsewhere) must not make a
 * healthy connection fail. The retransmit timer fires on its own thread; before, it took the ACK waiting unread in
 * the socket for a lost packet, resent and used up {@code retry_cnt} — 20 to 125 of 150 connections opened at once
 * failed with {@code RETRY_EXC_ERR} on a loaded machine (cm-reactive's {@code ShrinkAfterLoadTest}). Now such an
 * expiry is put off while the loop has not found its sockets empty since; but only so many times, so a loop that
 * never catches up still learns that its peer is gone.
 */
class ReceptionBehindTest {
    /** 4.096 µs · 2^14 = 67 ms, at the harness's timer scale 0.1: 6.7 ms. */
    private static final int TIMEOUT = 14;
    private static final long PERIOD_NANOS = 6_710_886;


    /**
     * Two RC QPs connected with the short timeout and {@code retryCnt}, and a loop poller that has read both devices'
     * sockets once.
     */
    private record Connected(Harness h, Harness.Side x, Harness.Side y, Poller poller) implements AutoCloseable {
        /** Posts one 64-byte SEND from x to y. */
        void send() {
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            sb.clear(0).wrId(0, 2).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 64, x.mr.lkey());
            x.qp.postSend(sb, 1);
        }

        @Override
        public void close() {
            try {
                poller.close();
            } finally {
                h.close();
            }
        }
    }

    private static Connected connectedOnALoop(int retryCnt) {
        Harness h = new Harness(Map.of(SoftRoceConfig.RECEIVE_ON_LOOP, "true"));
        Harness.Side x = h.side(h.a, 1 << 16);
        Harness.Side y = h.side(h.b, 1 << 16);
        Harness.Params p = new Harness.Params();
        p.timeout = TIMEOUT;
        p.retryCnt = retryCnt; // RETRY_EXC_ERR at counted expiry retryCnt + 1
        Harness.connect(x, y, p);
        Poller poller = h.fabric.createLoopPoller(); // reads both devices' sockets, when it polls
        poller.poll(0, a -> { }); // caught up once: from here on the loop is busy elsewhere
        return new Connected(h, x, y, poller);
    }

    @Test
    void aSendCompletesWhenTheLoopReadsItsSocketsOnlyAfterSeveralTimerPeriods() throws Exception {
        try (Connected c = connectedOnALoop(2)) {
            Harness h = c.h;
            Harness.Side x = c.x;
            Harness.Side y = c.y;
            RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);
            rb.wrId(0, 1).single(0, y.mr.address(), 64, y.mr.lkey());
            y.qp.postRecv(rb, 1);
            c.send();
            // the loop reads nothing for ~3.7 periods: the SEND and then its ACK wait in the sockets. Three
            // counted expiries (at ~1, 2 and 3 periods) would have failed the SEND; now the first that may count
            // comes after 5 periods and the third after 15 (a sleep that overshoots on a loaded machine)
            Thread.sleep(PERIOD_NANOS * 37 / 10 / 1_000_000);

            int done = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (done == 0 && System.nanoTime() < deadline) {
                c.poller.poll(1_000_000, a -> { });
                done = x.scq.poll(x.wc);
            }
            assertThat(done).as("the SEND's completion").isEqualTo(1);
            assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            SoftDevice a = (SoftDevice) h.a;
            assertThat(a.count(QpCounter.RETRANSMIT_TIMEOUTS_PUT_OFF)).as("expiries put off").isPositive();
            assertThat(y.rcq.poll(y.wc)).as("the message at y").isEqualTo(1);
        }
    }

    @Test
    void aLoopThatNeverCatchesUpStillLearnsThatItsPeerIsGone() throws Exception {
        try (Connected c = connectedOnALoop(1)) {
            Harness.Side x = c.x;
            c.send();
            // the loop never reads again: every expiry finds it behind, yet the SEND fails after two tries
            long start = System.nanoTime();
            assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, Duration.ofSeconds(10))).isEqualTo(1);
            long took = System.nanoTime() - start;
            assertThat(x.wc.status(0)).isEqualTo(WcStatus.RETRY_EXC_ERR);
            SoftDevice a = (SoftDevice) c.h.a;
            assertThat(a.count(QpCounter.RETRANSMIT_TIMEOUTS_PUT_OFF)).as("16 put off before each counted one")
                    .isEqualTo(2L * Sender.MAX_EXPIRIES_PUT_OFF);
            assertThat(a.count(QpCounter.RETRANSMIT_TIMEOUTS)).isEqualTo(2);
            assertThat(took).as("two tries of five periods each").isGreaterThanOrEqualTo(9 * PERIOD_NANOS);
        }
    }

    @Test
    void aLoopWaitingForDatagramsOrOnReceiveThreadsIsNeverBehind() {
        ReceptionProgress p = new ReceptionProgress();
        long mark = p.mark();
        assertThat(p.behindSince(mark)).as("receive threads").isFalse();
        p.lent(true);
        assertThat(p.behindSince(mark)).as("a loop that has not read since").isTrue();
        p.waiting(true);
        assertThat(p.behindSince(mark)).as("blocked waiting: nothing unread").isFalse();
        p.waiting(false);
        p.drained();
        assertThat(p.behindSince(mark)).as("found the sockets empty since").isFalse();
        assertThat(p.behindSince(p.mark())).isTrue();
        p.lent(false);
        assertThat(p.behindSince(p.mark())).isFalse();
    }
}
