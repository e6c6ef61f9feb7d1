package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every RC verb end to end between two soft devices, QPs connected by hand. */
class RcOpcodesTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private Harness h;
    private Side x;
    private Side y;
    private SendBatch sb;
    private RecvBatch rb;

    @BeforeEach
    void connect() {
        h = new Harness();
        x = h.side(h.a, 4 << 20, new QpCap(256, 256, 4, 4, 128), true, null, null);
        y = h.side(h.b, 4 << 20, new QpCap(256, 256, 4, 4, 128), true, null, null);
        Harness.connect(x, y, new Harness.Params());
        sb = SendBatch.allocate(h.arena, 16, 4);
        rb = RecvBatch.allocate(h.arena, 16, 4);
    }

    @AfterEach
    void close() {
        h.close();
    }

    private static void fill(MemorySegment s, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (i * 31 + seed));
        }
    }

    private static void assertFilled(MemorySegment s, long off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != (byte) (i * 31 + seed)) {
                throw new AssertionError("byte " + i + " differs");
            }
        }
    }

    private static CompletionBatch one(Side s, boolean send) {
        assertThat(Harness.pollAtLeast(send ? s.scq : s.rcq, s.wc, 1, WAIT)).as("completion: %s", Harness.describe(s.qp))
                .isEqualTo(1);
        return s.wc;
    }

    private void recv(long wrId, long off, int len) {
        rb.clear(0).wrId(0, wrId).single(0, y.mr.address() + off, len, y.mr.lkey());
        y.qp.postRecv(rb, 1);
    }

    @Test
    void sendGathersAndScattersAcrossPackets() {
        // receive into three pieces, send from two, 5000 bytes = 5 packets at MTU 1024
        rb.clear(0).wrId(0, 1).sge(0, 0, y.mr.address(), 1000, y.mr.lkey())
                .sge(0, 1, y.mr.address() + 10_000, 3000, y.mr.lkey())
                .sge(0, 2, y.mr.address() + 20_000, 4000, y.mr.lkey()).numSge(0, 3);
        y.qp.postRecv(rb, 1);
        fill(x.buf, 0, 2500, 1);
        fill(x.buf, 50_000, 2500, 2);
        sb.clear(0).wrId(0, 9).opcode(0, WrOpcode.SEND).sge(0, 0, x.mr.address(), 2500, x.mr.lkey())
                .sge(0, 1, x.mr.address() + 50_000, 2500, x.mr.lkey()).numSge(0, 2);
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, false);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.byteLen(0)).isEqualTo(5000);
        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RECV);
        assertThat(wc.qpNum(0)).isEqualTo(y.qp.qpNum());
        // expected stream: 2500 bytes seed 1 then 2500 seed 2, laid over 1000 + 3000 + 1000
        byte[] got = new byte[5000];
        MemorySegment.copy(y.buf, ValueLayout.JAVA_BYTE, 0, got, 0, 1000);
        MemorySegment.copy(y.buf, ValueLayout.JAVA_BYTE, 10_000, got, 1000, 3000);
        MemorySegment.copy(y.buf, ValueLayout.JAVA_BYTE, 20_000, got, 4000, 1000);
        for (int i = 0; i < 5000; i++) {
            int k = i < 2500 ? i : i - 2500;
            assertThat(got[i]).as("byte %d", i).isEqualTo((byte) (k * 31 + (i < 2500 ? 1 : 2)));
        }
        assertThat(one(x, true).status(0)).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void sendWithImmediateAndSolicitedEvent() {
        recv(3, 0, 64);
        fill(x.buf, 0, 10, 5);
        sb.clear(0).wrId(0, 4).opcode(0, WrOpcode.SEND_WITH_IMM).flags(0, SendFlags.SOLICITED).immData(0, 0xCAFEBABE)
                .single(0, x.mr.address(), 10, x.mr.lkey());
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, false);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.flags(0) & WcFlags.WITH_IMM).isNotZero();
        assertThat(wc.immData(0)).isEqualTo(0xCAFEBABE);
        assertThat(wc.byteLen(0)).isEqualTo(10);
        assertFilled(y.buf, 0, 10, 5);
    }

    @Test
    void rdmaWriteOfAMegabyteCrossesTheWindow() {
        int len = 1 << 20; // 1024 packets, several 128-PSN windows
        fill(x.buf, 0, len, 7);
        sb.clear(0).wrId(0, 8).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address() + 4096, y.mr.rkey())
                .single(0, x.mr.address(), len, x.mr.lkey());
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(x, true);
        assertThat(wc.status(0)).as("%s / %s", Harness.describe(x.qp), Harness.describe(y.qp))
                .isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(wc.byteLen(0)).isEqualTo(len);
        assertFilled(y.buf, 4096, len, 7);
        assertThat(y.rcq.poll(y.wc)).as("a plain WRITE consumes no receive").isZero();
    }

    @Test
    void rdmaWriteWithImmediateConsumesAReceive() {
        recv(10, 0, 0);
        rb.clear(0).wrId(0, 10).numSge(0, 0);
        y.qp.postRecv(rb, 1);
        fill(x.buf, 0, 3000, 9);
        sb.clear(0).wrId(0, 11).opcode(0, WrOpcode.RDMA_WRITE_WITH_IMM).immData(0, 42)
                .rdma(0, y.mr.address() + 100_000, y.mr.rkey()).single(0, x.mr.address(), 3000, x.mr.lkey());
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, false);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId(0)).isEqualTo(10);
        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wc.immData(0)).isEqualTo(42);
        assertThat(wc.byteLen(0)).isEqualTo(3000);
        assertFilled(y.buf, 100_000, 3000, 9);
    }

    @Test
    void rdmaReadOfManyPackets() {
        int len = 300_000;
        fill(y.buf, 0, len, 11);
        sb.clear(0).wrId(0, 12).opcode(0, WrOpcode.RDMA_READ).rdma(0, y.mr.address(), y.mr.rkey())
                .sge(0, 0, x.mr.address() + 1_000_000, 100_000, x.mr.lkey())
                .sge(0, 1, x.mr.address() + 2_000_000, len - 100_000, x.mr.lkey()).numSge(0, 2);
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(x, true);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(wc.byteLen(0)).isEqualTo(len);
        byte[] got = new byte[len];
        MemorySegment.copy(x.buf, ValueLayout.JAVA_BYTE, 1_000_000, got, 0, 100_000);
        MemorySegment.copy(x.buf, ValueLayout.JAVA_BYTE, 2_000_000, got, 100_000, len - 100_000);
        for (int i = 0; i < len; i++) {
            assertThat(got[i]).isEqualTo((byte) (i * 31 + 11));
        }
    }

    @Test
    void atomicsReturnTheOriginalValue() {
        y.buf.set(ValueLayout.JAVA_LONG, 800, 100L);
        sb.clear(0).wrId(0, 13).opcode(0, WrOpcode.ATOMIC_FETCH_AND_ADD)
                .atomic(0, y.mr.address() + 800, 5, 0, y.mr.rkey()).single(0, x.mr.address() + 8, 8, x.mr.lkey());
        sb.clear(1).wrId(1, 14).opcode(1, WrOpcode.ATOMIC_CMP_AND_SWP)
                .atomic(1, y.mr.address() + 800, 105, 777, y.mr.rkey()).single(1, x.mr.address() + 16, 8, x.mr.lkey());
        sb.clear(2).wrId(2, 15).opcode(2, WrOpcode.ATOMIC_CMP_AND_SWP)
                .atomic(2, y.mr.address() + 800, 1, 999, y.mr.rkey()).single(2, x.mr.address() + 24, 8, x.mr.lkey());
        x.qp.postSend(sb, 3);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 3, WAIT)).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(x.wc.opcode(0)).isEqualTo(WcOpcode.FETCH_ADD);
        assertThat(x.wc.opcode(1)).isEqualTo(WcOpcode.COMP_SWAP);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(100L);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 16)).isEqualTo(105L);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 24)).as("failed compare returns the value").isEqualTo(777L);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 800)).isEqualTo(777L);
    }

    @Test
    void inlineSendNeedsNoLkeyAndTheBufferIsReusableAtOnce() {
        recv(16, 0, 128);
        fill(x.buf, 0, 100, 13);
        sb.clear(0).wrId(0, 17).opcode(0, WrOpcode.SEND).flags(0, SendFlags.INLINE).single(0, x.mr.address(), 100, 0);
        x.qp.postSend(sb, 1);
        fill(x.buf, 0, 100, 99); // overwrite right after posting: the inline copy was taken at post time
        CompletionBatch wc = one(y, false);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.byteLen(0)).isEqualTo(100);
        assertFilled(y.buf, 0, 100, 13);
    }

    @Test
    void selectiveSignallingCompletesOnlySignalledWrs() {
        Harness.Side p = h.side(h.a, 1 << 16, new QpCap(64, 64, 1, 1, 0), false, null, null);
        Harness.Side q = h.side(h.b, 1 << 16, new QpCap(64, 64, 1, 1, 0), false, null, null);
        Harness.connect(p, q, new Harness.Params());
        for (int i = 0; i < 4; i++) {
            sb.clear(i).wrId(i, 100 + i).opcode(i, WrOpcode.RDMA_WRITE).rdma(i, q.mr.address() + 64L * i, q.mr.rkey())
                    .single(i, p.mr.address(), 64, p.mr.lkey()).flags(i, i == 3 ? SendFlags.SIGNALED : 0);
        }
        p.qp.postSend(sb, 4);
        assertThat(Harness.pollAtLeast(p.scq, p.wc, 1, WAIT)).isEqualTo(1);
        assertThat(p.wc.wrId(0)).isEqualTo(103);
        assertThat(Harness.pollAtLeast(p.scq, p.wc, 1, Duration.ofMillis(200))).isZero();
    }

    @Test
    void zeroLengthSendAndManyMessagesInOrder() {
        rb.clear(0).wrId(0, 200).numSge(0, 0);
        y.qp.postRecv(rb, 1);
        sb.clear(0).wrId(0, 201).opcode(0, WrOpcode.SEND).numSge(0, 0);
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, false);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.byteLen(0)).isZero();
        one(x, true);
        int n = 2000;
        int receivedN = 0;
        int sentN = 0;
        int completed = 0;
        while (completed < n) {
            while (receivedN < n && receivedN - completed < 128) {
                rb.clear(0).wrId(0, receivedN).single(0, y.mr.address() + 8L * (receivedN % 128), 8, y.mr.lkey());
                y.qp.postRecv(rb, 1);
                receivedN++;
            }
            while (sentN < receivedN && sentN - completed < 64) {
                x.buf.set(ValueLayout.JAVA_LONG, 8L * (sentN % 64), sentN);
                sb.clear(0).wrId(0, sentN).opcode(0, WrOpcode.SEND).flags(0, SendFlags.INLINE)
                        .single(0, x.mr.address() + 8L * (sentN % 64), 8, x.mr.lkey());
                x.qp.postSend(sb, 1);
                sentN++;
            }
            int k = Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT);
            assertThat(k).as("stalled after %d: %s / %s", completed,
                    ((dev.ibex.softroce.transport.SoftQueuePair) x.qp).describe(),
                    ((dev.ibex.softroce.transport.SoftQueuePair) y.qp).describe()).isPositive();
            for (int i = 0; i < k; i++) {
                assertThat(y.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
                assertThat(y.wc.wrId(i)).isEqualTo(completed);
                assertThat(y.buf.get(ValueLayout.JAVA_LONG, 8L * (completed % 128))).isEqualTo(completed);
                completed++;
            }
            while (x.scq.poll(x.wc) > 0) {
                // drain send completions
            }
        }
    }
}
