package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link NextTurn}: on a loop that receives its own packets, work past the per-turn budget — a READ reply of 64
 * packets, a burst of WRITEs posted on the loop — goes on on the loop's next turns. The work queue's thread runs none
 * of it (before, it sent the rest beside the loop, the two contending for the socket). Every operation completes, and
 * the bytes arrive.
 */
class NextTurnTest {
    static final int READ_LEN = 64 * 1024; // 64 packets at MTU 1024: four times the budget
    static final int WRITES = 16;
    static final int WRITE_LEN = 16 * 1024;
    static final long READ_AT = 0;
    static final long WRITE_AT = 1 << 17;

    @Test
    void aLoopSendsWhatItsBudgetCutShortItselfOnItsNextTurns() {
        try (Harness h = new Harness(Map.of(SoftRoceConfig.RECEIVE_ON_LOOP, "true"))) {
            Harness.Side x = h.side(h.a, 1 << 19);
            Harness.Side y = h.side(h.b, 1 << 19);
            Harness.Params params = new Harness.Params(); // timeout 18: no retransmission timer fires meanwhile
            Harness.connect(x, y, params);
            for (long off = 0; off < READ_LEN; off += 8) {
                y.buf.set(ValueLayout.JAVA_LONG, READ_AT + off, off * 0x9E3779B97F4A7C15L);
            }
            for (long off = 0; off < (long) WRITES * WRITE_LEN; off += 8) {
                x.buf.set(ValueLayout.JAVA_LONG, WRITE_AT + off, ~off);
            }
            WorkQueue work = ((SoftDevice) h.a).workQueue();
            long ranBefore = work.tasksRun() + (work == ((SoftDevice) h.b).workQueue() ? 0
                    : ((SoftDevice) h.b).workQueue().tasksRun());
            try (Poller poller = h.fabric.createLoopPoller()) {
                SendBatch sb = SendBatch.allocate(h.arena, WRITES, 1);
                sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_READ).flags(0, SendFlags.SIGNALED)
                        .rdma(0, y.mr.address() + READ_AT, y.mr.rkey())
                        .single(0, x.mr.address() + READ_AT, READ_LEN, x.mr.lkey());
                x.qp.postSend(sb, 1);
                awaitCompletions(poller, x, 1); // y's reply is read and sent by this thread, the poller's

                for (int i = 0; i < WRITES; i++) { // posted on the loop: 16 packets a turn go out, the rest later
                    sb.clear(i).wrId(i, 100 + i).opcode(i, WrOpcode.RDMA_WRITE).flags(i, SendFlags.SIGNALED)
                            .rdma(i, y.mr.address() + WRITE_AT + (long) i * WRITE_LEN, y.mr.rkey())
                            .single(i, x.mr.address() + WRITE_AT + (long) i * WRITE_LEN, WRITE_LEN, x.mr.lkey());
                }
                x.qp.postSend(sb, WRITES);
                awaitCompletions(poller, x, WRITES);
            }
            for (long off = 0; off < READ_LEN; off += 8) {
                assertThat(x.buf.get(ValueLayout.JAVA_LONG, READ_AT + off)).isEqualTo(off * 0x9E3779B97F4A7C15L);
            }
            for (long off = 0; off < (long) WRITES * WRITE_LEN; off += 8) {
                assertThat(y.buf.get(ValueLayout.JAVA_LONG, WRITE_AT + off)).isEqualTo(~off);
            }
            long ranAfter = work.tasksRun() + (work == ((SoftDevice) h.b).workQueue() ? 0
                    : ((SoftDevice) h.b).workQueue().tasksRun());
            assertThat(ranAfter - ranBefore).as("tasks the work queue's thread ran").isZero();
        }
    }

    /** Polls on this thread (the loop) until {@code n} successful send completions came. */
    private static void awaitCompletions(Poller poller, Harness.Side x, int n) {
        int done = 0;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (done < n && System.nanoTime() < deadline) {
            poller.poll(1_000_000, a -> { });
            int k = x.scq.poll(x.wc);
            for (int i = 0; i < k; i++) {
                assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
            }
            done += k;
        }
        assertThat(done).as("send completions").isEqualTo(n);
    }
}
