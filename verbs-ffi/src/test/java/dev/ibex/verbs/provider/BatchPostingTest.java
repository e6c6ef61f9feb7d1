package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.verbs.ffi.ContextOps;
import dev.ibex.verbs.ffi.FakeProvider;
import dev.ibex.verbs.ffi.Gcc;
import dev.ibex.verbs.ffi.constant.IbvWrOpcode;
import dev.ibex.verbs.ffi.struct.IbvCq;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvSrq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The provider's data path with the SPI batches, against a fake rdma-core provider compiled from C (verbs-ffi's
 * {@code fakeprovider.c}): the WR chain Java links is the chain C walks, {@code bad_wr} becomes the failed index,
 * and C-written completions are read through {@link CompletionBatch}.
 */
class BatchPostingTest {
    private Arena arena;
    private ContextOps ops;
    private MemorySegment context;
    private MemorySegment digest;
    private MemorySegment badWr;

    @BeforeEach
    void setUp() throws Exception {
        Gcc.assumeToolchain();
        arena = Arena.ofConfined();
        context = FakeProvider.context(arena);
        ops = ContextOps.of(context);
        digest = arena.allocate(ValueLayout.JAVA_LONG, 16);
        badWr = arena.allocate(8, 8);
    }

    @AfterEach
    void tearDown() {
        if (arena != null) {
            arena.close();
        }
    }

    private MemorySegment object(long size, long contextOffset) {
        MemorySegment o = arena.allocate(size, 8);
        o.set(ValueLayout.ADDRESS, 0, context);
        o.set(ValueLayout.ADDRESS, contextOffset, digest);
        return o;
    }

    private long d(int i) {
        return digest.getAtIndex(ValueLayout.JAVA_LONG, i);
    }

    @Test
    void postSendHandsTheFirstCountWrsToTheProviderInOneChain() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        SendBatch batch = SendBatch.allocate(arena, 8, 2);
        for (int i = 0; i < 8; i++) {
            batch.clear(i).wrId(i, 100 + i).opcode(i, WrOpcode.SEND).flags(i, SendFlags.SIGNALED)
                    .single(i, 0x1000L * (i + 1), 10, 5);
        }
        batch.opcode(0, WrOpcode.RDMA_WRITE).rdma(0, 0xDEAD_0000L, 0x42)
                .sge(0, 1, 0x9000, 20, 6).numSge(0, 2);
        batch.opcode(1, WrOpcode.SEND_WITH_IMM).immData(1, 0xCAFEF00D).flags(1, SendFlags.INLINE);

        BatchPosting.postSend(ops, qp, batch, 3, badWr);

        assertThat(d(0)).as("exactly 3 WRs walked").isEqualTo(3);
        assertThat(d(1)).as("SGE bytes").isEqualTo(10 + 20 + 10 + 10);
        assertThat(d(3)).as("lkeys").isEqualTo(5 + 6 + 5 + 5);
        assertThat(d(4)).as("wr_id order").isEqualTo((100L * 31 + 101) * 31 + 102);
        assertThat(d(5)).isEqualTo(0xDEAD_0000L);
        assertThat(d(6)).isEqualTo(0x42);
        assertThat(d(7)).as("immediate data as C reads it with ntohl").isEqualTo(0xCAFEF00DL);
        assertThat(d(15)).isEqualTo(SendFlags.SIGNALED | SendFlags.INLINE);
    }

    @Test
    void aRefusedWrBecomesAPostExceptionWithItsIndex() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        SendBatch batch = SendBatch.allocate(arena, 4, 1);
        for (int i = 0; i < 4; i++) {
            batch.wrId(i, i).opcode(i, WrOpcode.SEND).single(i, 0x1000, 8, 1);
        }
        batch.opcode(2, IbvWrOpcode.IBV_WR_DRIVER1);

        assertThatThrownBy(() -> BatchPosting.postSend(ops, qp, batch, 4, badWr))
                .isInstanceOfSatisfying(PostException.class, e -> {
                    assertThat(e.failedIndex()).isEqualTo(2);
                    assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                    assertThat(e.verb()).isEqualTo("ibv_post_send");
                    assertThat(e.getMessage()).contains("work request 2 was not posted").contains("work queue is full");
                });
        assertThat(d(0)).as("WRs 0 and 1 were posted").isEqualTo(2);
    }

    @Test
    void receivesReachTheQpAndTheSrqAndReportTheirBadWr() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        RecvBatch batch = RecvBatch.allocate(arena, 3, 5);
        for (int i = 0; i < 3; i++) {
            batch.wrId(i, 7 + i).single(i, 0x2000, 64, 9);
        }
        BatchPosting.postRecv(ops, qp, batch, 2, badWr);
        assertThat(d(0)).isEqualTo(2);
        assertThat(d(1)).isEqualTo(128);
        assertThat(d(4)).isEqualTo(7L * 31 + 8);

        MemorySegment srq = object(IbvSrq.SIZE, IbvSrq.OFFSET_SRQ_CONTEXT);
        batch.numSge(1, 5);
        assertThatThrownBy(() -> BatchPosting.postSrqRecv(ops, srq, batch, 3, badWr))
                .isInstanceOfSatisfying(PostException.class, e -> {
                    assertThat(e.failedIndex()).isEqualTo(1);
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.verb()).isEqualTo("ibv_post_srq_recv");
                });
    }

    @Test
    void pollWritesStraightIntoTheCompletionBatch() {
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        digest.setAtIndex(ValueLayout.JAVA_LONG, 0, 3);
        CompletionBatch wc = CompletionBatch.allocate(arena, 2);

        assertThat(BatchPosting.poll(ops, cq, wc)).isEqualTo(2);
        assertThat(wc.wrId(0)).isEqualTo(1000);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(WcOpcode.isReceive(wc.opcode(0))).isTrue();
        assertThat(wc.status(1)).isEqualTo(WcStatus.RETRY_EXC_ERR);
        assertThat(wc.opcode(1)).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(wc.byteLen(1)).isEqualTo(4097);
        assertThat(wc.immData(1)).as("host order").isEqualTo(0xA0B0C0D1);
        assertThat(wc.flags(1)).isEqualTo(WcFlags.WITH_IMM | WcFlags.GRH);
        assertThat(wc.qpNum(1)).isEqualTo(0x123456);
        assertThat(wc.srcQp(1)).isEqualTo(0xABCDEF);
        assertThat(wc.pkeyIndex(1)).isEqualTo(0xFFFF);
        assertThat(wc.slid(1)).isEqualTo(0x1234);
        assertThat(wc.sl(1)).isEqualTo(7);
        assertThat(BatchPosting.poll(ops, cq, wc)).isEqualTo(1);
        assertThat(BatchPosting.poll(ops, cq, wc)).isZero();
    }

    @Test
    void aFailedArmIsATypedError() {
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        BatchPosting.requestNotify(ops, cq, true);
        assertThat(d(2)).as("solicited only").isEqualTo(1);
        digest.setAtIndex(ValueLayout.JAVA_LONG, 4, Errno.EINVAL.number());
        assertThatThrownBy(() -> BatchPosting.requestNotify(ops, cq, false))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void postingAndPollingBatchesAllocateNothing() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        SendBatch send = SendBatch.allocate(arena, 4, 1);
        RecvBatch recv = RecvBatch.allocate(arena, 4, 1);
        CompletionBatch wc = CompletionBatch.allocate(arena, 16);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = rounds(qp, cq, send, recv, wc, 50_000);
        long before = threads.getCurrentThreadAllocatedBytes();
        sink += rounds(qp, cq, send, recv, wc, 50_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated by 50000 rounds of postSend(4) + postRecv(4) + poll")
                .isLessThan(50_000);
    }

    private long rounds(MemorySegment qp, MemorySegment cq, SendBatch send, RecvBatch recv, CompletionBatch wc, int n) {
        long sink = 0;
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 4; k++) {
                send.wrId(k, i + k).opcode(k, WrOpcode.SEND).flags(k, SendFlags.SIGNALED).single(k, 0x1000 + k, 64, 3);
                recv.wrId(k, i - k).single(k, 0x8000 + k, 64, 3);
            }
            BatchPosting.postSend(ops, qp, send, 4, badWr);
            BatchPosting.postRecv(ops, qp, recv, 4, badWr);
            digest.setAtIndex(ValueLayout.JAVA_LONG, 0, 2);
            int got = BatchPosting.poll(ops, cq, wc);
            for (int k = 0; k < got; k++) {
                sink += wc.wrId(k) + wc.statusCode(k) + wc.byteLen(k);
            }
        }
        return sink;
    }
}
