package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.constant.IbvSendFlags.IBV_SEND_INLINE;
import static dev.ibex.verbs.ffi.constant.IbvSendFlags.IBV_SEND_SIGNALED;
import static dev.ibex.verbs.ffi.constant.IbvWcFlags.IBV_WC_GRH;
import static dev.ibex.verbs.ffi.constant.IbvWcFlags.IBV_WC_WITH_IMM;
import static dev.ibex.verbs.ffi.constant.IbvWcOpcode.IBV_WC_RDMA_WRITE;
import static dev.ibex.verbs.ffi.constant.IbvWcOpcode.IBV_WC_RECV;
import static dev.ibex.verbs.ffi.constant.IbvWcStatus.IBV_WC_RETRY_EXC_ERR;
import static dev.ibex.verbs.ffi.constant.IbvWcStatus.IBV_WC_SUCCESS;
import static dev.ibex.verbs.ffi.constant.IbvWrOpcode.IBV_WR_ATOMIC_CMP_AND_SWP;
import static dev.ibex.verbs.ffi.constant.IbvWrOpcode.IBV_WR_DRIVER1;
import static dev.ibex.verbs.ffi.constant.IbvWrOpcode.IBV_WR_RDMA_WRITE;
import static dev.ibex.verbs.ffi.constant.IbvWrOpcode.IBV_WR_SEND;
import static dev.ibex.verbs.ffi.constant.IbvWrOpcode.IBV_WR_SEND_WITH_IMM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.constant.IbvLinkLayer;
import dev.ibex.verbs.ffi.constant.IbvMtu;
import dev.ibex.verbs.ffi.constant.IbvPortState;
import dev.ibex.verbs.ffi.constant.IbvWcStatus;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvCq;
import dev.ibex.verbs.ffi.struct.IbvPortAttr;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvRecvWr;
import dev.ibex.verbs.ffi.struct.IbvSendWr;
import dev.ibex.verbs.ffi.struct.IbvSge;
import dev.ibex.verbs.ffi.struct.IbvSrq;
import dev.ibex.verbs.ffi.struct.IbvWc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The static inline data-path verbs, called through the function pointers of a hand-built
 * {@code struct ibv_context} into a fake provider compiled from C: what Java writes is what C reads and
 * the other way round.
 */
class ContextOpsTest {
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
        badWr = arena.allocate(ValueLayout.ADDRESS);
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
    void aProviderWithoutMemoryWindowsIsATypedNotSupported() {
        // the fake provider leaves ops.alloc_mw NULL, as a provider library without windows does
        assertThat(IbvContext.allocMwFn(context).address()).isZero();
        MemorySegment pd = arena.allocate(dev.ibex.verbs.ffi.struct.IbvPd.SIZE, 8);
        pd.set(ValueLayout.ADDRESS, dev.ibex.verbs.ffi.struct.IbvPd.OFFSET_CONTEXT, context);
        assertThatThrownBy(() -> MemoryWindows.allocMw(pd, dev.ibex.verbs.ffi.constant.IbvMwType.IBV_MW_TYPE_2))
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.ENOTSUP);
                    assertThat(e.verb()).isEqualTo("ibv_alloc_mw");
                });
        assertThatThrownBy(() -> MemoryWindows.allocMw(MemorySegment.NULL, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pollCqReadsCompletionsWrittenByTheProvider() {
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        digest.setAtIndex(ValueLayout.JAVA_LONG, 0, 3);
        MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 2);

        assertThat(ops.pollCq(cq, 2, wc)).isEqualTo(2);
        assertThat(IbvWc.wrId(wc, 0)).isEqualTo(1000);
        assertThat(IbvWc.status(wc, 0)).isEqualTo(IBV_WC_SUCCESS);
        assertThat(IbvWc.opcode(wc, 0) & IBV_WC_RECV).isNotZero();
        assertThat(IbvWc.wrId(wc, 1)).isEqualTo(1001);
        assertThat(IbvWcStatus.name(IbvWc.status(wc, 1))).isEqualTo("IBV_WC_RETRY_EXC_ERR");
        assertThat(IbvWc.status(wc, 1)).isEqualTo(IBV_WC_RETRY_EXC_ERR);
        assertThat(IbvWc.opcode(wc, 1)).isEqualTo(IBV_WC_RDMA_WRITE);
        assertThat(IbvWc.vendorErr(wc, 1)).isEqualTo(0x56);
        assertThat(IbvWc.byteLen(wc, 1)).isEqualTo(4097);
        assertThat(IbvWc.immData(wc, 1)).as("host order").isEqualTo(0xA0B0C0D1);
        assertThat(IbvWc.qpNum(wc, 1)).isEqualTo(0x123456);
        assertThat(IbvWc.srcQp(wc, 1)).isEqualTo(0xABCDEF);
        assertThat(IbvWc.wcFlags(wc, 1)).isEqualTo(IBV_WC_WITH_IMM | IBV_WC_GRH);
        assertThat(IbvWc.pkeyIndex(wc, 1)).isEqualTo(0xFFFF);
        assertThat(IbvWc.slid(wc, 1)).isEqualTo(0x1234);
        assertThat(IbvWc.sl(wc, 1)).isEqualTo(7);
        assertThat(IbvWc.dlidPathBits(wc, 1)).isEqualTo(0x7F);

        assertThat(ops.pollCq(cq, 2, wc)).as("one left").isEqualTo(1);
        assertThat(ops.pollCq(cq, 2, wc)).as("empty").isZero();
        assertThatThrownBy(() -> ops.pollCq(cq, 3, wc)).as("C would write past the array")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reqNotifyCqPassesSolicitedOnlyAndReturnsTheErrnoValue() {
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        assertThat(ops.reqNotifyCq(cq, true)).isZero();
        assertThat(d(2)).isEqualTo(1);
        digest.setAtIndex(ValueLayout.JAVA_LONG, 4, Errno.EINVAL.number());
        assertThat(ops.reqNotifyCq(cq, false)).isEqualTo(Errno.EINVAL.number());
        assertThat(d(2)).isZero();
        assertThat(d(3)).isEqualTo(2);
    }

    @Test
    void postSendWalksTheChainJavaWrote() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        MemorySegment sge = arena.allocate(IbvSge.LAYOUT, 4);
        IbvSge.set(sge, 0, 0x1000, 100, 7);
        IbvSge.set(sge, 1, 0x2000, 200, 8);
        IbvSge.set(sge, 2, 0x4000, 300, 9);
        IbvSge.set(sge, 3, 0x8000, 400, 10);
        MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT, 4);
        IbvSendWr.set(wr, 0, 11, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, IbvSge.address(sge, 0), 2);
        IbvSendWr.rdmaRemoteAddr(wr, 0, 0xDEAD_BEEF_0000L);
        IbvSendWr.rdmaRkey(wr, 0, 0x77);
        IbvSendWr.set(wr, 1, 12, IBV_WR_SEND_WITH_IMM, IBV_SEND_INLINE, IbvSge.address(sge, 2), 1);
        IbvSendWr.immData(wr, 1, 0xCAFEF00D);
        IbvSendWr.set(wr, 2, 13, IBV_WR_SEND, 0, IbvSge.address(sge, 3), 1);
        IbvSendWr.udAh(wr, 2, 0xAB00);
        IbvSendWr.udRemoteQpn(wr, 2, 0xFFFFFF);
        IbvSendWr.udRemoteQkey(wr, 2, 0x80010000);
        IbvSendWr.set(wr, 3, 14, IBV_WR_ATOMIC_CMP_AND_SWP, 0, 0, 0);
        IbvSendWr.atomicCompareAdd(wr, 3, 5);
        IbvSendWr.atomicSwap(wr, 3, 6);
        IbvSendWr.atomicRemoteAddr(wr, 3, 0x10);
        IbvSendWr.atomicRkey(wr, 3, 0x99);
        for (int i = 0; i < 3; i++) {
            IbvSendWr.next(wr, i, IbvSendWr.address(wr, i + 1));
        }

        assertThat(ops.postSend(qp, wr, badWr)).isZero();
        assertThat(d(0)).as("WRs").isEqualTo(4);
        assertThat(d(1)).as("SGE bytes").isEqualTo(100 + 200 + 300 + 400);
        assertThat(d(2)).as("SGE addresses").isEqualTo(0x1000 ^ 0x2000 ^ 0x4000 ^ 0x8000);
        assertThat(d(3)).as("lkeys").isEqualTo(7 + 8 + 9 + 10);
        assertThat(d(4)).as("wr_id order").isEqualTo(((11L * 31 + 12) * 31 + 13) * 31 + 14);
        assertThat(d(5)).isEqualTo(0xDEAD_BEEF_0000L);
        assertThat(d(6)).isEqualTo(0x77);
        assertThat(d(7)).as("imm_data in network order, read with ntohl").isEqualTo(0xCAFEF00DL);
        assertThat(d(8)).isEqualTo(0xAB00);
        assertThat(d(9)).isEqualTo(0xFFFFFF);
        assertThat(d(10)).isEqualTo(0x80010000L);
        assertThat(d(11)).isEqualTo(5);
        assertThat(d(12)).isEqualTo(6);
        assertThat(d(13)).isEqualTo(0x10);
        assertThat(d(14)).isEqualTo(0x99);
        assertThat(d(15)).isEqualTo(IBV_SEND_SIGNALED | IBV_SEND_INLINE);
    }

    @Test
    void aFailedPostReturnsTheErrnoAndTheBadWr() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT, 2);
        IbvSendWr.set(wr, 0, 1, IBV_WR_SEND, 0, 0, 0);
        IbvSendWr.set(wr, 1, 2, IBV_WR_DRIVER1, 0, 0, 0);
        IbvSendWr.next(wr, 0, IbvSendWr.address(wr, 1));

        int rc = ops.postSend(qp, wr, badWr);
        assertThat(rc).isEqualTo(Errno.ENOMEM.number());
        assertThat(badWr.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(IbvSendWr.address(wr, 1));
        assertThat(d(0)).as("the good WR went through").isEqualTo(1);
        assertThatThrownBy(() -> RdmaErrors.check("ibv_post_send", rc))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM))
                .hasMessageContaining("work queue is full");
    }

    @Test
    void postRecvAndPostSrqRecvReachTheirQueues() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        MemorySegment sge = arena.allocate(IbvSge.LAYOUT, 2);
        IbvSge.set(sge, 0, 0x1000, 64, 1);
        IbvSge.set(sge, 1, 0x2000, 32, 2);
        MemorySegment wr = arena.allocate(IbvRecvWr.LAYOUT, 2);
        IbvRecvWr.set(wr, 0, 21, IbvSge.address(sge, 0), 1);
        IbvRecvWr.set(wr, 1, 22, IbvSge.address(sge, 1), 1);
        IbvRecvWr.next(wr, 0, IbvRecvWr.address(wr, 1));
        assertThat(ops.postRecv(qp, wr, badWr)).isZero();
        assertThat(d(0)).isEqualTo(2);
        assertThat(d(1)).isEqualTo(96);
        assertThat(d(4)).isEqualTo(21L * 31 + 22);

        MemorySegment srq = object(IbvSrq.SIZE, IbvSrq.OFFSET_SRQ_CONTEXT);
        IbvRecvWr.numSge(wr, 1, 5);
        assertThat(ops.postSrqRecv(srq, wr, badWr)).isEqualTo(Errno.EINVAL.number());
        assertThat(badWr.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(IbvRecvWr.address(wr, 1));
    }

    @Test
    void aProviderWithoutAnOpGetsEopnotsuppNotACrash() {
        MemorySegment empty = arena.allocate(IbvContext.LAYOUT);
        ContextOps none = ContextOps.of(empty);
        MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 1);
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        assertThat(none.pollCq(cq, 1, wc)).isEqualTo(-Errno.ENOTSUP.number());
        assertThat(none.postSend(qp, MemorySegment.NULL, badWr)).isEqualTo(Errno.ENOTSUP.number());
        assertThat(none.reqNotifyCq(cq, false)).isEqualTo(Errno.ENOTSUP.number());
    }

    @Test
    void nullQueuesAndMissingBadWrAreRejectedBeforeTheCall() {
        MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 1);
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        assertThatThrownBy(() -> ContextOps.of(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.pollCq(MemorySegment.NULL, 1, wc)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.reqNotifyCq(MemorySegment.NULL, true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.postSend(MemorySegment.NULL, MemorySegment.NULL, badWr))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.postRecv(qp, MemorySegment.NULL, MemorySegment.NULL))
                .as("bad_wr is required").isInstanceOf(IllegalArgumentException.class);
        assertThat(d(0)).as("nothing reached the provider").isZero();
    }

    @Test
    void queryPortUsesTheExtendedOpWithTheFullStructSize() {
        MemorySegment attr = arena.allocate(IbvPortAttr.LAYOUT);
        attr.fill((byte) 0x5A);
        Devices.queryPort(context, 1, attr);
        assertThat(IbvPortAttr.state(attr)).isEqualTo(IbvPortState.IBV_PORT_ACTIVE);
        assertThat(IbvPortAttr.maxMtu(attr)).isEqualTo(IbvMtu.IBV_MTU_4096);
        assertThat(IbvPortAttr.activeMtu(attr)).isEqualTo(IbvMtu.IBV_MTU_1024);
        assertThat(IbvPortAttr.gidTblLen(attr)).isEqualTo(128);
        assertThat(IbvPortAttr.maxMsgSz(attr)).isEqualTo(0x80000000);
        assertThat(IbvPortAttr.lid(attr)).isEqualTo(0x42);
        assertThat(IbvPortAttr.linkLayer(attr)).isEqualTo(IbvLinkLayer.IBV_LINK_LAYER_ETHERNET);
        assertThat(IbvPortAttr.portCapFlags2(attr)).as("beyond the legacy 48-byte prefix").isEqualTo(0x21);
        assertThatThrownBy(() -> Devices.queryPort(context, 2, attr))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThatThrownBy(() -> Devices.queryPort(context, 0, attr)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDataPathAllocatesNothing() {
        MemorySegment qp = object(IbvQp.SIZE, IbvQp.OFFSET_QP_CONTEXT);
        MemorySegment cq = object(IbvCq.SIZE, IbvCq.OFFSET_CQ_CONTEXT);
        MemorySegment sge = arena.allocate(IbvSge.LAYOUT, 1);
        MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT, 1);
        MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 16);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = loop(qp, cq, sge, wr, wc, 50_000);
        long before = threads.getCurrentThreadAllocatedBytes();
        sink += loop(qp, cq, sge, wr, wc, 50_000);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.println("data path: " + allocated + " bytes allocated in 50000 post+poll rounds (sink " + sink + ")");
        assertThat(allocated).as("bytes allocated by 50000 rounds of post_send + poll_cq + wc reads").isLessThan(50_000);
    }

    private long loop(MemorySegment qp, MemorySegment cq, MemorySegment sge, MemorySegment wr, MemorySegment wc, int rounds) {
        long sink = 0;
        for (int i = 0; i < rounds; i++) {
            IbvSge.set(sge, 0, 0x1000 + i, 64, 3);
            IbvSendWr.set(wr, 0, i, IBV_WR_SEND, IBV_SEND_SIGNALED, sge.address(), 1);
            sink += ops.postSend(qp, wr, badWr);
            digest.setAtIndex(ValueLayout.JAVA_LONG, 0, 1);
            int n = ops.pollCq(cq, 16, wc);
            for (int k = 0; k < n; k++) {
                sink += IbvWc.wrId(wc, k) + IbvWc.status(wc, k) + IbvWc.byteLen(wc, k);
            }
        }
        return sink;
    }
}
