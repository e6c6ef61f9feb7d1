package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.SoftRoceConfig;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Protection, length, RNR, retry and flush behaviour of the RC transport. */
class ErrorPathsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private Harness h;
    private Side x;
    private Side y;
    private SendBatch sb;
    private RecvBatch rb;

    @BeforeEach
    void open() {
        h = new Harness();
        sb = SendBatch.allocate(h.arena, 8, 2);
        rb = RecvBatch.allocate(h.arena, 8, 2);
    }

    @AfterEach
    void close() {
        h.close();
    }

    private void connect(Harness.Params p) {
        x = h.side(h.a, 1 << 16, new QpCap(16, 16, 2, 2, 0), true, null, null);
        y = h.side(h.b, 1 << 16, new QpCap(16, 16, 2, 2, 0), true, null, null);
        Harness.connect(x, y, p);
    }

    private CompletionBatch sendCompletions(int n) {
        assertThat(Harness.pollAtLeast(x.scq, x.wc, n, WAIT)).as("%s", Harness.describe(x.qp)).isEqualTo(n);
        return x.wc;
    }

    private static AsyncEvent awaitEvent(DeviceContext dev, AsyncEventType type) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent e = dev.asyncEvents().poll();
            if (e != null && e.type() == type) {
                return e;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no " + type);
    }

    private static boolean untouched(MemorySegment s, long off, int len) {
        for (int i = 0; i < len; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != 0) {
                return false;
            }
        }
        return true;
    }

    private void write(long wrId, long remote, int rkey, int len) {
        sb.clear(0).wrId(0, wrId).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, remote, rkey)
                .single(0, x.mr.address(), len, x.mr.lkey());
        x.qp.postSend(sb, 1);
    }

    @Test
    void badRkeyIsARemoteAccessErrorAndTheTargetStaysUntouched() {
        connect(new Harness.Params());
        x.buf.fill((byte) 7);
        write(1, y.mr.address(), y.mr.rkey() ^ 0x100, 64);
        // the WR posted after the failing one is flushed
        sb.clear(0).wrId(0, 2).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address(), y.mr.rkey())
                .single(0, x.mr.address(), 64, x.mr.lkey());
        x.qp.postSend(sb, 1);
        CompletionBatch wc = sendCompletions(2);
        assertThat(wc.wrId(0)).isEqualTo(1);
        assertThat(wc.status(0)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(wc.wrId(1)).isEqualTo(2);
        assertThat(wc.status(1)).isIn(WcStatus.WR_FLUSH_ERR);
        assertThat(untouched(y.buf, 0, 4096)).isTrue();
        assertThat(x.qp.state()).isEqualTo(QpState.ERR);
        assertThat(awaitEvent(h.b, AsyncEventType.QP_ACCESS_ERR).qp()).isSameAs(y.qp);
        assertThat(y.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void outOfRangeAndMissingAccessAreRemoteAccessErrors() {
        connect(new Harness.Params());
        x.buf.fill((byte) 7);
        write(1, y.mr.address() + y.mr.length() - 32, y.mr.rkey(), 64); // runs past the end
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(untouched(y.buf, 0, (int) y.mr.length())).isTrue();
    }

    @Test
    void regionWithoutRemoteWriteRefusesWrites() {
        connect(new Harness.Params());
        MemorySegment seg = h.arena.allocate(4096);
        MemoryRegion readOnly = y.pd.registerMemory(seg, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        x.buf.fill((byte) 7);
        write(1, readOnly.address(), readOnly.rkey(), 64);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(untouched(seg, 0, 4096)).isTrue();
    }

    @Test
    void regionWithoutRemoteReadRefusesReads() {
        connect(new Harness.Params());
        MemoryRegion writeOnly = y.pd.registerMemory(h.arena.allocate(4096),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_READ).rdma(0, writeOnly.address(), writeOnly.rkey())
                .single(0, x.mr.address(), 64, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void qpWithoutRemoteAccessRejectsTheOperationAsInvalid() {
        Harness.Params p = new Harness.Params();
        p.access = Access.mask(EnumSet.of(Access.LOCAL_WRITE)); // the responder QP allows no RDMA
        connect(p);
        write(1, y.mr.address(), y.mr.rkey(), 64);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertThat(untouched(y.buf, 0, 4096)).isTrue();
    }

    @Test
    void badLkeyIsALocalProtectionError() {
        connect(new Harness.Params());
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address(), y.mr.rkey())
                .single(0, x.mr.address(), 64, x.mr.lkey() + 1);
        x.qp.postSend(sb, 1);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertThat(x.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void receiveBufferTooSmallIsALengthErrorOnBothSides() {
        connect(new Harness.Params());
        rb.clear(0).wrId(0, 10).single(0, y.mr.address(), 100, y.mr.lkey());
        rb.clear(1).wrId(1, 11).single(1, y.mr.address() + 200, 100, y.mr.lkey());
        y.qp.postRecv(rb, 2);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 3000, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 2, WAIT)).isEqualTo(2);
        assertThat(y.wc.wrId(0)).isEqualTo(10);
        assertThat(y.wc.status(0)).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(y.wc.wrId(1)).isEqualTo(11);
        assertThat(y.wc.status(1)).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(y.wc.opcode(1)).isEqualTo(WcOpcode.RECV);
    }

    @Test
    void receiverThatPostsLateStillGetsEverythingThroughRnrNaks() {
        Harness.Params p = new Harness.Params();
        p.minRnrTimer = 14; // 1.28 ms (0.128 ms at the harness scale)
        p.rnrRetry = 7; // forever
        connect(p);
        for (int i = 0; i < 4; i++) {
            x.buf.set(ValueLayout.JAVA_LONG, 8L * i, 1000 + i);
            sb.clear(i).wrId(i, i).opcode(i, WrOpcode.SEND).single(i, x.mr.address() + 8L * i, 8, x.mr.lkey());
        }
        x.qp.postSend(sb, 4);
        // let the requester meet RNR NAKs for a while, then post the receives
        long until = System.nanoTime() + 30_000_000;
        while (((SoftQueuePair) x.qp).retries() < 3 && System.nanoTime() < until + WAIT.toNanos()) {
            Thread.onSpinWait();
        }
        assertThat(((SoftQueuePair) x.qp).retries()).as("RNR retries before the receives exist").isGreaterThan(0);
        for (int i = 0; i < 4; i++) {
            rb.clear(i).wrId(i, 100 + i).single(i, y.mr.address() + 64L * i, 64, y.mr.lkey());
        }
        y.qp.postRecv(rb, 4);
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 4, WAIT)).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(y.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
            assertThat(y.wc.wrId(i)).isEqualTo(100 + i);
            assertThat(y.buf.get(ValueLayout.JAVA_LONG, 64L * i)).isEqualTo(1000 + i);
        }
        CompletionBatch wc = sendCompletions(4);
        for (int i = 0; i < 4; i++) {
            assertThat(wc.status(i)).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void longRnrWaitWithInfiniteRnrRetryDoesNotUseUpTheRetryCount() {
        Harness.Params p = new Harness.Params();
        // generous times: on a loaded machine one response can take tens of milliseconds, which is a real timeout
        p.timeout = 17; // 537 ms, 53.7 ms at the harness scale
        p.retryCnt = 2;
        p.minRnrTimer = 0; // 655 ms, 65.5 ms at the harness scale: every RNR wait outlasts an ACK timeout
        p.rnrRetry = 7; // forever
        connect(p);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        // six RNR NAK rounds (~390 ms), far longer than timeout x (retry_cnt + 1), before a receive exists
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (((SoftQueuePair) x.qp).retries() < 6 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(((SoftQueuePair) x.qp).retries()).as("%s", Harness.describe(x.qp)).isGreaterThanOrEqualTo(6);
        assertThat(x.scq.poll(x.wc)).as("still waiting out RNR NAKs: %s", Harness.describe(x.qp)).isZero();
        rb.clear(0).wrId(0, 100).single(0, y.mr.address(), 64, y.mr.lkey());
        y.qp.postRecv(rb, 1);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT)).isEqualTo(1);
        assertThat(y.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void rnrRetryZeroFailsAtTheFirstRnrNak() {
        Harness.Params p = new Harness.Params();
        p.timeout = 17;
        p.retryCnt = 2;
        p.minRnrTimer = 0;
        p.rnrRetry = 0;
        connect(p);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(x.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void rnrRetriesRunOut() {
        Harness.Params p = new Harness.Params();
        p.minRnrTimer = 1;
        p.rnrRetry = 2;
        connect(p);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(((SoftQueuePair) x.qp).retries()).isEqualTo(2);
    }

    @Test
    void deadPeerExhaustsTheRetryCount() {
        Harness.Params p = new Harness.Params();
        p.timeout = 12; // 16.8 ms, 1.68 ms at the harness scale
        p.retryCnt = 3;
        connect(p);
        y.qp.close(); // nobody answers any more
        long t0 = System.nanoTime();
        write(1, y.mr.address(), y.mr.rkey(), 64);
        CompletionBatch wc = sendCompletions(1);
        long elapsed = System.nanoTime() - t0;
        assertThat(wc.status(0)).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(((SoftQueuePair) x.qp).retries()).as("retry_cnt 3 means three retries").isEqualTo(3);
        assertThat(elapsed).as("four timeouts of 1.68 ms").isGreaterThanOrEqualTo(4 * 1_600_000L);
        assertThat(x.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void rxeCompatibleRetrySevenRetriesForever() {
        h.close();
        h = new Harness(Map.of(SoftRoceConfig.RETRY_SEVEN_INFINITE, "true", SoftRoceConfig.TIMER_SCALE, "0.01"));
        sb = SendBatch.allocate(h.arena, 8, 2);
        rb = RecvBatch.allocate(h.arena, 8, 2);
        Harness.Params p = new Harness.Params();
        p.timeout = 8; // 1 ms, 10 µs at this scale (the timer thread's resolution decides)
        p.retryCnt = 7;
        connect(p);
        y.qp.close();
        write(1, y.mr.address(), y.mr.rkey(), 64);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (((SoftQueuePair) x.qp).retries() < 12 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(((SoftQueuePair) x.qp).retries()).isGreaterThanOrEqualTo(12);
        assertThat(x.scq.poll(x.wc)).as("still retrying, no completion").isZero();
        x.qp.modify(new QpAttr().state(QpState.ERR));
        assertThat(sendCompletions(1).status(0)).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void errorFlushesOutstandingReceivesAndLaterPosts() {
        connect(new Harness.Params());
        for (int i = 0; i < 5; i++) {
            rb.clear(i).wrId(i, 50 + i).single(i, y.mr.address(), 64, y.mr.lkey());
        }
        y.qp.postRecv(rb, 5);
        y.qp.modify(new QpAttr().state(QpState.ERR));
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 5, WAIT)).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(y.wc.status(i)).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(y.wc.wrId(i)).isEqualTo(50 + i);
        }
        // posting to a QP in ERR completes at once with a flush error
        rb.clear(0).wrId(0, 99).single(0, y.mr.address(), 64, y.mr.lkey());
        y.qp.postRecv(rb, 1);
        sb.clear(0).wrId(0, 98).opcode(0, WrOpcode.SEND).single(0, y.mr.address(), 8, y.mr.lkey());
        y.qp.postSend(sb, 1);
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT)).isEqualTo(1);
        assertThat(y.wc.wrId(0)).isEqualTo(99);
        assertThat(Harness.pollAtLeast(y.scq, y.wc, 1, WAIT)).isEqualTo(1);
        assertThat(y.wc.wrId(0)).isEqualTo(98);
        assertThat(y.wc.status(0)).isEqualTo(WcStatus.WR_FLUSH_ERR);
        // RESET and back to RTS makes it usable again
        y.qp.modify(new QpAttr().state(QpState.RESET));
        assertThat(y.qp.state()).isEqualTo(QpState.RESET);
    }
}
