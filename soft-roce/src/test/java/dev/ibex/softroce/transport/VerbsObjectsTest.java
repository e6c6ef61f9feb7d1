package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Verbs semantics of PD, MR, AH, CQ and completion channel that the framework relies on. */
class VerbsObjectsTest {
    private Harness h;

    @BeforeEach
    void open() {
        h = new Harness();
    }

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void pdCloseFailsWhileChildrenLive() {
        ProtectionDomain pd = h.a.allocPd();
        MemoryRegion mr = pd.registerMemory(h.arena.allocate(64), Set.of(Access.LOCAL_WRITE));
        AddressHandle ah = pd.createAddressHandle(Harness.path(h.b));
        assertThatThrownBy(pd::close).isInstanceOf(RdmaException.class)
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EBUSY));
        mr.close();
        ah.close();
        pd.close();
        pd.close(); // idempotent
        assertThat(h.fabric.resources().userResources()).isZero();
    }

    @Test
    void memoryRegistrationRules() {
        ProtectionDomain pd = h.a.allocPd();
        assertThatThrownBy(() -> pd.registerMemory(MemorySegment.ofArray(new byte[64]), Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("native");
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment s = confined.allocate(64);
            assertThatThrownBy(() -> pd.registerMemory(s, Set.of())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("confined");
        }
        assertThatThrownBy(() -> pd.registerMemory(h.arena.allocate(64), Set.of(Access.REMOTE_WRITE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LOCAL_WRITE");
        MemorySegment seg = h.arena.allocate(4096);
        MemoryRegion a = pd.registerMemory(seg, Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        MemoryRegion b = pd.registerMemory(seg, Set.of(Access.LOCAL_WRITE)); // same memory twice is allowed
        assertThat(a.lkey()).isNotEqualTo(b.lkey());
        assertThat(a.address()).isEqualTo(seg.address());
        assertThat(a.length()).isEqualTo(4096);
        assertThat(a.access()).isEqualTo(Access.mask(Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ)));
        int oldKey = a.lkey();
        a.close();
        MemoryRegion c = pd.registerMemory(seg, Set.of());
        assertThat(c.lkey()).as("a freed key is not handed out again at once").isNotEqualTo(oldKey);
        assertThat(((SoftProtectionDomain) pd).softDevice().memoryRegion(oldKey)).isNull();
        b.close();
        c.close();
        pd.close();
    }

    @Test
    void addressHandlesNeedAGlobalIpv4Route() throws Exception {
        ProtectionDomain pd = h.a.allocPd();
        Gid v6 = Gid.of(InetAddress.getByName("::1"));
        assertThatThrownBy(() -> pd.createAddressHandle(AhAttr.roce(v6, 0, 1))).isInstanceOf(RdmaException.class);
        assertThatThrownBy(() -> pd.createAddressHandle(AhAttr.roce(Harness.path(h.b).dgid(), 3, 1)))
                .isInstanceOf(RdmaException.class).hasMessageContaining("GID index");
        assertThatThrownBy(() -> pd.createAddressHandle(AhAttr.roce(Harness.path(h.b).dgid(), 0, 2)))
                .isInstanceOf(RdmaException.class);
        AddressHandle ah = pd.createAddressHandle(Harness.path(h.b));
        assertThat(ah.attr().dgid()).isEqualTo(h.b.queryGid(1, 0));
        assertThat(ah.handle()).isPositive();
        ah.close();
        pd.close();
    }

    @Test
    void completionNotificationsFollowTheVerbsRules() {
        CompletionChannel ch = h.a.createCompletionChannel();
        SoftCompletionQueue cq = (SoftCompletionQueue) h.a.createCompletionQueue(100, ch, 0);
        assertThat(cq.capacity()).isGreaterThanOrEqualTo(100);
        // not armed: no event
        cq.complete(1, 0, 0, 0, 0, 0, 0, 0, false);
        assertThat(ch.poll()).isNull();
        // an existing completion does not fire a new arm
        cq.requestNotify(false);
        assertThat(ch.poll()).isNull();
        // one event per arm
        cq.complete(2, 0, 0, 0, 0, 0, 0, 0, false);
        cq.complete(3, 0, 0, 0, 0, 0, 0, 0, false);
        assertThat(ch.poll()).isSameAs(cq);
        assertThat(ch.poll()).isNull();
        // solicited-only: a plain completion does not fire, a solicited one and an error one do
        cq.requestNotify(true);
        cq.complete(4, 0, 0, 0, 0, 0, 0, 0, false);
        assertThat(ch.poll()).isNull();
        cq.complete(5, 0, 0, 0, 0, 0, 0, 0, true);
        assertThat(ch.poll()).isSameAs(cq);
        cq.requestNotify(true);
        cq.complete(6, WcStatus.WR_FLUSH_ERR.code(), 0, 0, 0, 0, 0, 0, false);
        assertThat(ch.poll()).isSameAs(cq);
        // arming for any after solicited upgrades
        cq.requestNotify(true);
        cq.requestNotify(false);
        cq.complete(7, 0, 0, 0, 0, 0, 0, 0, false);
        assertThat(ch.poll()).isSameAs(cq);
        // counting and acknowledging
        assertThat(cq.unackedEvents()).isEqualTo(4);
        assertThatThrownBy(() -> cq.ackEvents(5)).isInstanceOf(IllegalArgumentException.class);
        cq.ackEvents(3);
        assertThat(cq.unackedEvents()).isEqualTo(1);
        CompletionBatch wc = CompletionBatch.allocate(h.arena, 16);
        assertThat(cq.poll(wc)).isEqualTo(7);
        assertThat(wc.wrId(0)).isEqualTo(1);
        assertThat(wc.wrId(6)).isEqualTo(7);
        assertThat(wc.status(5)).isEqualTo(WcStatus.WR_FLUSH_ERR);
        // the channel cannot go while a CQ uses it; closing the CQ settles the unacked event
        assertThatThrownBy(ch::close).isInstanceOf(RdmaException.class);
        cq.requestNotify(false);
        cq.complete(8, 0, 0, 0, 0, 0, 0, 0, false); // a pending notification at close time
        cq.close();
        assertThat(ch.poll()).isNull();
        ch.close();
        assertThat(h.fabric.resources().userResources()).isZero();
    }

    @Test
    void cqCloseFailsWhileAQpUsesIt() {
        ProtectionDomain pd = h.a.allocPd();
        CompletionQueue cq = h.a.createCompletionQueue(16, null, 0);
        QueuePair qp = pd.createQueuePair(new QpInitAttr(cq, cq, null, new QpCap(4, 4, 1, 1, 0), QpType.RC, true,
                null));
        assertThatThrownBy(cq::close).isInstanceOf(RdmaException.class)
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EBUSY));
        qp.close();
        cq.close();
        pd.close();
    }

    @Test
    void aCqCountsEachQpUsingItOnceAndClosesOnlyWhenTheLastIsDestroyed() {
        ProtectionDomain pd = h.a.allocPd();
        CompletionQueue cq = h.a.createCompletionQueue(16, null, 0);
        CompletionQueue other = h.a.createCompletionQueue(16, null, 0);
        QpCap cap = new QpCap(4, 4, 1, 1, 0);
        QueuePair both = pd.createQueuePair(new QpInitAttr(cq, cq, null, cap, QpType.RC, true, null));
        QueuePair sendOnly = pd.createQueuePair(new QpInitAttr(cq, other, null, cap, QpType.RC, true, null));
        QueuePair recvOnly = pd.createQueuePair(new QpInitAttr(other, cq, null, cap, QpType.RC, true, null));
        int using = 3; // "both" once, though it completes there on both sides
        for (QueuePair qp : new QueuePair[] {both, sendOnly, recvOnly}) {
            assertThatThrownBy(cq::close).isInstanceOf(RdmaException.class)
                    .hasMessageContaining(using-- + " QP(s) still use the completion queue")
                    .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EBUSY));
            qp.close();
        }
        cq.close();
        other.close();
        pd.close();
        assertThat(h.fabric.resources().userResources()).isZero();
    }

    @Test
    void cqOverrunRaisesCqErrAndFailsItsQps() {
        Harness.Side x = h.side(h.a, 1 << 16);
        ProtectionDomain pd = h.b.allocPd();
        CompletionQueue small = h.b.createCompletionQueue(4, null, 0);
        QueuePair yqp = pd.createQueuePair(new QpInitAttr(small, small, null, new QpCap(16, 16, 1, 1, 0), QpType.RC,
                true, null));
        MemorySegment buf = h.arena.allocate(4096);
        MemoryRegion ymr = pd.registerMemory(buf, EnumSet.allOf(Access.class));
        Harness.Params p = new Harness.Params();
        Harness.toInit(x.qp, p);
        Harness.toInit(yqp, p);
        Harness.toRtr(x.qp, h.b, yqp.qpNum(), p.psnB, p);
        Harness.toRtr(yqp, h.a, x.qp.qpNum(), p.psnA, p);
        Harness.toRts(x.qp, p.psnA, p);
        Harness.toRts(yqp, p.psnB, p);
        RecvBatch rb = RecvBatch.allocate(h.arena, 16, 1);
        for (int i = 0; i < 10; i++) {
            rb.wrId(i, i).single(i, ymr.address(), 64, ymr.lkey());
        }
        yqp.postRecv(rb, 10);
        SendBatch sb = SendBatch.allocate(h.arena, 10, 1);
        for (int i = 0; i < 10; i++) {
            sb.wrId(i, i).opcode(i, WrOpcode.SEND).single(i, x.mr.address(), 8, x.mr.lkey());
        }
        x.qp.postSend(sb, 10); // 10 receive completions into a CQ of 4
        AsyncEvent cqErr = awaitEvent(h.b, AsyncEventType.CQ_ERR);
        assertThat(cqErr.cq()).isSameAs(small);
        AsyncEvent fatal = awaitEvent(h.b, AsyncEventType.QP_FATAL);
        assertThat(fatal.qp()).isSameAs(yqp);
        assertThat(yqp.state()).isEqualTo(QpState.ERR);
        assertThat(((SoftCompletionQueue) small).inError()).isTrue();
        yqp.close();
        small.close();
        ymr.close();
        pd.close();
    }

    static AsyncEvent awaitEvent(dev.ibex.cm.spi.DeviceContext dev, AsyncEventType type) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent e = dev.asyncEvents().poll();
            if (e != null && e.type() == type) {
                return e;
            }
            if (e == null) {
                Thread.onSpinWait();
            }
        }
        throw new AssertionError("no " + type + " event");
    }

    @Test
    void postingChecksStateQueueDepthAndOpcode() {
        Harness.Side x = h.side(h.a, 1 << 16, new QpCap(2, 2, 1, 1, 0), true, null, null);
        Harness.Side y = h.side(h.b, 1 << 16, new QpCap(2, 2, 1, 1, 0), true, null, null);
        SendBatch sb = SendBatch.allocate(h.arena, 4, 1);
        sb.wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 8, x.mr.lkey());
        assertThatThrownBy(() -> x.qp.postSend(sb, 1)).isInstanceOf(PostException.class)
                .hasMessageContaining("RESET");
        RecvBatch rb = RecvBatch.allocate(h.arena, 4, 2);
        assertThatThrownBy(() -> y.qp.postRecv(rb, 1)).isInstanceOf(PostException.class);
        Harness.connect(x, y, new Harness.Params());
        rb.numSge(0, 2);
        assertThatThrownBy(() -> y.qp.postRecv(rb, 1)).isInstanceOf(PostException.class)
                .satisfies(e -> assertThat(((PostException) e).failedIndex()).isZero());
        sb.opcode(0, 12); // IBV_WR_ATOMIC_WRITE: not implemented
        assertThatThrownBy(() -> x.qp.postSend(sb, 1)).isInstanceOf(PostException.class)
                .hasMessageContaining("not supported");
        sb.opcode(0, WrOpcode.BIND_MW); // names no window
        assertThatThrownBy(() -> x.qp.postSend(sb, 1)).isInstanceOf(PostException.class)
                .hasMessageContaining("window");
        sb.opcode(0, WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(0, 4, 1, 0, 0).single(0, x.mr.address(), 8, x.mr.lkey());
        assertThatThrownBy(() -> x.qp.postSend(sb, 1)).isInstanceOf(PostException.class)
                .hasMessageContaining("aligned");
        // a full send queue: ENOMEM at the first WR that does not fit, earlier ones posted
        for (int i = 0; i < 4; i++) {
            sb.clear(i).wrId(i, i).opcode(i, WrOpcode.RDMA_WRITE).rdma(i, y.mr.address(), y.mr.rkey())
                    .single(i, x.mr.address(), 8, x.mr.lkey());
        }
        PostException full = null;
        try {
            x.qp.postSend(sb, 4);
        } catch (PostException e) {
            full = e;
        }
        if (full != null) { // the requester may have completed some in between, so it can only fail at 2 or 3
            assertThat(full.errno()).isEqualTo(Errno.ENOMEM);
            assertThat(full.failedIndex()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void resourceCountsReturnToZero() {
        Harness.Side x = h.side(h.a, 4096);
        assertThat(h.fabric.resources().get(ResourceKind.QUEUE_PAIR)).isEqualTo(1);
        assertThat(h.fabric.resources().get(ResourceKind.COMPLETION_QUEUE)).isEqualTo(2);
        assertThat(h.fabric.resources().get(ResourceKind.MEMORY_REGION)).isEqualTo(1);
        x.qp.close();
        x.mr.close();
        x.scq.close();
        x.rcq.close();
        x.pd.close();
        assertThat(h.fabric.resources().userResources()).isZero();
        assertThatThrownBy(() -> x.qp.postSend(SendBatch.allocate(h.arena, 1, 1), 1))
                .isInstanceOf(IllegalStateException.class);
    }
}
