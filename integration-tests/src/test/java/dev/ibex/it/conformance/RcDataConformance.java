package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** RC data transfer over an established connection: every operation, signalling, SRQ and the error completions. */
public interface RcDataConformance extends Conformance {

    /** One WR for the client QP over {@code [offset, offset+length)} of its buffer. */
    private SendBatch post(RcPair p, int opcode, long wrId, int flags, long offset, int length) {
        SendBatch b = sends(1, 2);
        b.wrId(0, wrId).opcode(0, opcode).flags(0, flags).single(0, p.clientMem.address(offset), length,
                p.clientMem.lkey());
        return b;
    }

    private Completion one(CompletionQueue cq) {
        List<Completion> got = pump().completions(cq, 1);
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    private static void assertOk(Completion c, int opcode) {
        assertThat(c.status()).as("%s", c).isEqualTo(WcStatus.SUCCESS);
        assertThat(WcOpcode.name(c.opcode())).isEqualTo(WcOpcode.name(opcode));
    }

    @Test
    default void sendLandsInAPostedReceive() {
        RcPair p = RcPair.connect(this);
        p.clientMem.put(0, "hello server");
        p.clientQp.postSend(post(p, WrOpcode.SEND, 1, SendFlags.SIGNALED, 0, 12), 1);
        Completion r = one(p.serverCq);
        assertOk(r, WcOpcode.RECV);
        assertThat(r.wrId()).isEqualTo(1000);
        assertThat(r.byteLen()).isEqualTo(12);
        assertThat(r.qpNum()).isEqualTo(p.serverQp.qpNum());
        assertThat(r.flags() & WcFlags.WITH_IMM).isZero();
        assertThat(p.serverMem.get(0, 12)).isEqualTo("hello server");
        Completion s = one(p.clientCq);
        assertOk(s, WcOpcode.SEND);
        assertThat(s.wrId()).isEqualTo(1);
    }

    @Test
    default void sendWithImmediateDeliversTheImmediate() {
        RcPair p = RcPair.connect(this);
        p.clientMem.put(0, "imm");
        p.clientQp.postSend(post(p, WrOpcode.SEND_WITH_IMM, 2, SendFlags.SIGNALED, 0, 3).immData(0, 0xCAFEBABE), 1);
        Completion r = one(p.serverCq);
        assertOk(r, WcOpcode.RECV);
        assertThat(r.flags() & WcFlags.WITH_IMM).isNotZero();
        assertThat(r.immData()).isEqualTo(0xCAFEBABE);
        assertThat(r.byteLen()).isEqualTo(3);
        assertOk(one(p.clientCq), WcOpcode.SEND);
    }

    @Test
    default void rdmaWriteChangesRemoteMemoryWithoutAReceive() {
        RcPair p = RcPair.connect(this);
        p.clientMem.put(0, "written remotely");
        p.clientQp.postSend(post(p, WrOpcode.RDMA_WRITE, 3, SendFlags.SIGNALED, 0, 16)
                .rdma(0, p.serverMem.address(32768), p.serverMem.rkey()), 1);
        assertOk(one(p.clientCq), WcOpcode.RDMA_WRITE);
        assertThat(p.serverMem.get(32768, 16)).isEqualTo("written remotely");
        assertThat(pump().drain(p.serverCq, Duration.ofMillis(100))).as("no receive consumed").isEmpty();
    }

    @Test
    default void rdmaWriteWithImmediateConsumesAReceive() {
        RcPair p = RcPair.connect(this);
        p.clientMem.put(0, "write+imm");
        p.clientQp.postSend(post(p, WrOpcode.RDMA_WRITE_WITH_IMM, 4, SendFlags.SIGNALED, 0, 9)
                .rdma(0, p.serverMem.address(40000), p.serverMem.rkey()).immData(0, 0x01020304), 1);
        Completion r = one(p.serverCq);
        assertOk(r, WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(r.immData()).isEqualTo(0x01020304);
        assertThat(r.flags() & WcFlags.WITH_IMM).isNotZero();
        assertThat(p.serverMem.get(40000, 9)).isEqualTo("write+imm");
        assertOk(one(p.clientCq), WcOpcode.RDMA_WRITE);
    }

    @Test
    default void rdmaReadFetchesRemoteMemory() {
        RcPair p = RcPair.connect(this);
        p.serverMem.put(20000, "read me back");
        p.clientQp.postSend(post(p, WrOpcode.RDMA_READ, 5, SendFlags.SIGNALED, 100, 12)
                .rdma(0, p.serverMem.address(20000), p.serverMem.rkey()), 1);
        Completion c = one(p.clientCq);
        assertOk(c, WcOpcode.RDMA_READ);
        assertThat(c.byteLen()).isEqualTo(12);
        assertThat(p.clientMem.get(100, 12)).isEqualTo("read me back");
    }

    @Test
    default void fetchAndAddReturnsTheOldValueAndAdds() {
        RcPair p = RcPair.connect(this);
        p.serverMem.segment().set(ValueLayout.JAVA_LONG, 24576, 40L);
        p.clientQp.postSend(post(p, WrOpcode.ATOMIC_FETCH_AND_ADD, 6, SendFlags.SIGNALED, 8, 8)
                .atomic(0, p.serverMem.address(24576), 2, 0, p.serverMem.rkey()), 1);
        assertOk(one(p.clientCq), WcOpcode.FETCH_ADD);
        assertThat(p.clientMem.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(40L);
        assertThat(p.serverMem.segment().get(ValueLayout.JAVA_LONG, 24576)).isEqualTo(42L);
    }

    @Test
    default void compareAndSwapSwapsOnlyOnAMatch() {
        RcPair p = RcPair.connect(this);
        p.serverMem.segment().set(ValueLayout.JAVA_LONG, 24576, 42L);
        p.clientQp.postSend(post(p, WrOpcode.ATOMIC_CMP_AND_SWP, 7, SendFlags.SIGNALED, 8, 8)
                .atomic(0, p.serverMem.address(24576), 42, 99, p.serverMem.rkey()), 1);
        assertOk(one(p.clientCq), WcOpcode.COMP_SWAP);
        assertThat(p.clientMem.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42L);
        assertThat(p.serverMem.segment().get(ValueLayout.JAVA_LONG, 24576)).isEqualTo(99L);

        p.clientQp.postSend(post(p, WrOpcode.ATOMIC_CMP_AND_SWP, 8, SendFlags.SIGNALED, 16, 8)
                .atomic(0, p.serverMem.address(24576), 42, 7, p.serverMem.rkey()), 1);
        assertOk(one(p.clientCq), WcOpcode.COMP_SWAP);
        assertThat(p.clientMem.segment().get(ValueLayout.JAVA_LONG, 16)).as("the value found").isEqualTo(99L);
        assertThat(p.serverMem.segment().get(ValueLayout.JAVA_LONG, 24576)).as("no swap").isEqualTo(99L);
    }

    @Test
    default void anInlineSendCopiesTheDataAtPostTime() {
        RcPair p = RcPair.connect(this);
        assertThat(p.clientQp.cap().maxInlineData()).isGreaterThanOrEqualTo(32);
        p.clientMem.put(0, "inline payload");
        SendBatch b = sends(1, 1);
        b.wrId(0, 9).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED | SendFlags.INLINE)
                .single(0, p.clientMem.address(0), 14, 0);
        p.clientQp.postSend(b, 1);
        p.clientMem.put(0, "OVERWRITTEN!!!");
        assertOk(one(p.serverCq), WcOpcode.RECV);
        assertThat(p.serverMem.get(0, 14)).isEqualTo("inline payload");
        assertOk(one(p.clientCq), WcOpcode.SEND);
    }

    /**
     * Inline data is copied by the provider at post time from whatever address the SGE names (its lkey is
     * ignored): an address outside registered memory must be refused, never read (it would crash the JVM).
     */
    @Test
    default void inlineDataOutsideRegisteredMemoryIsRefusedAndTheQpGoesOn() {
        RcPair p = RcPair.connect(this);
        long unregistered = scope().arena().allocate(64, 8).address();
        for (long address : new long[] {0x10, unregistered}) {
            SendBatch b = sends(1, 1);
            b.wrId(0, 9).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED | SendFlags.INLINE)
                    .single(0, address, 14, 0);
            assertThatThrownBy(() -> p.clientQp.postSend(b, 1)).isInstanceOfSatisfying(PostException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
        assertThat(p.clientQp.state()).isEqualTo(QpState.RTS);
        p.clientMem.put(0, "still works");
        p.clientQp.postSend(post(p, WrOpcode.SEND, 1, SendFlags.SIGNALED, 0, 11), 1);
        assertOk(one(p.serverCq), WcOpcode.RECV);
        assertThat(p.serverMem.get(0, 11)).isEqualTo("still works");
    }

    @Test
    default void scatterGatherSendsAndReceivesSeveralSegments() {
        RcPair p = RcPair.connect(this, new RcPair.Options().serverReceives(0, 0));
        RecvBatch r = recvs(1, 2);
        r.wrId(0, 77).sge(0, 0, p.serverMem.address(1000), 8, p.serverMem.lkey())
                .sge(0, 1, p.serverMem.address(5000), 64, p.serverMem.lkey()).numSge(0, 2);
        p.serverQp.postRecv(r, 1);
        p.clientMem.put(0, "scatter-");
        p.clientMem.put(3000, "gathered");
        SendBatch b = sends(1, 2);
        b.wrId(0, 10).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                .sge(0, 0, p.clientMem.address(0), 8, p.clientMem.lkey())
                .sge(0, 1, p.clientMem.address(3000), 8, p.clientMem.lkey()).numSge(0, 2);
        p.clientQp.postSend(b, 1);
        Completion c = one(p.serverCq);
        assertOk(c, WcOpcode.RECV);
        assertThat(c.wrId()).isEqualTo(77);
        assertThat(c.byteLen()).isEqualTo(16);
        assertThat(p.serverMem.get(1000, 8)).isEqualTo("scatter-");
        assertThat(p.serverMem.get(5000, 8)).isEqualTo("gathered");
    }

    @Test
    default void onlySignalledSendsCompleteWhenNotSignallingAll() {
        RcPair p = RcPair.connect(this, new RcPair.Options().signalAll(false));
        SendBatch b = sends(4, 1);
        for (int i = 0; i < 4; i++) {
            b.wrId(i, 100 + i).opcode(i, WrOpcode.SEND).flags(i, i == 3 ? SendFlags.SIGNALED : 0)
                    .single(i, p.clientMem.address(i * 64L), 16, p.clientMem.lkey());
        }
        p.clientQp.postSend(b, 4);
        assertThat(pump().completions(p.serverCq, 4)).hasSize(4).allSatisfy(c -> assertOk(c, WcOpcode.RECV));
        List<Completion> sent = pump().completions(p.clientCq, 1);
        sent.addAll(pump().drain(p.clientCq, Duration.ofMillis(200)));
        assertThat(sent).singleElement().satisfies(c -> {
            assertOk(c, WcOpcode.SEND);
            assertThat(c.wrId()).isEqualTo(103);
        });
    }

    @Test
    default void aSharedReceiveQueueFeedsSeveralQps() {
        RcPair first = RcPair.connect(this, new RcPair.Options().serverReceives(0, 0));
        SharedReceiveQueue srq = scope().add(first.serverPd.createSharedReceiveQueue(32, 1, 0));
        RecvBatch r = recvs(16, 1);
        for (int i = 0; i < 16; i++) {
            r.wrId(i, 500 + i).single(i, first.serverMem.address(i * 256L), 256, first.serverMem.lkey());
        }
        srq.postRecv(r, 16);
        Set<Integer> serverQps = new HashSet<>();
        List<RcPair> pairs = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RcPair p = RcPair.connect(this, new RcPair.Options().channels(first.serverChannel, first.clientChannel)
                    .listener(first.listener).serverSide(first.serverPd, first.serverCq, first.serverMem).srq(srq));
            assertThat(p.serverQp.srq()).isSameAs(srq);
            assertThatThrownBy(() -> p.serverQp.postRecv(r, 1)).as("receives of an SRQ QP go to the SRQ")
                    .isInstanceOfSatisfying(PostException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                        assertThat(e.failedIndex()).isZero();
                    });
            serverQps.add(p.serverQp.qpNum());
            pairs.add(p);
        }
        for (RcPair p : pairs) {
            p.clientMem.put(0, "via srq");
            p.clientQp.postSend(post(p, WrOpcode.SEND, 1, SendFlags.SIGNALED, 0, 7), 1);
        }
        List<Completion> got = pump().completions(first.serverCq, 3);
        assertThat(got).hasSize(3).allSatisfy(c -> {
            assertOk(c, WcOpcode.RECV);
            assertThat(c.wrId()).isBetween(500L, 515L);
        });
        assertThat(got.stream().map(Completion::qpNum).toList()).containsExactlyInAnyOrderElementsOf(serverQps);
    }

    @Test
    default void aSendWithoutAPostedReceiveFailsWithRnrRetryExceeded() {
        ConnParam noRnrRetry = ConnParam.DEFAULT.withRetries(7, 0);
        RcPair p = RcPair.connect(this, new RcPair.Options().serverReceives(0, 0).connect(noRnrRetry).accept(noRnrRetry));
        p.clientQp.postSend(post(p, WrOpcode.SEND, 11, SendFlags.SIGNALED, 0, 8), 1);
        Completion c = one(p.clientCq);
        assertThat(c.status()).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        assertThat(c.wrId()).isEqualTo(11);
        assertThat(p.clientQp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    default void aBadRkeyIsARemoteAccessErrorAndLeavesTargetMemoryAlone() {
        RcPair p = RcPair.connect(this);
        p.serverMem.put(8192, "untouched");
        p.clientMem.put(0, "CLOBBERED");
        p.clientQp.postSend(post(p, WrOpcode.RDMA_WRITE, 12, SendFlags.SIGNALED, 0, 9)
                .rdma(0, p.serverMem.address(8192), p.serverMem.rkey() ^ 0x5A5A00), 1);
        Completion c = one(p.clientCq);
        assertThat(c.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(p.serverMem.get(8192, 9)).isEqualTo("untouched");
    }

    private Completion[] tooSmallAReceive() {
        RcPair p = RcPair.connect(this, new RcPair.Options().serverReceives(1, 16));
        p.clientQp.postSend(post(p, WrOpcode.SEND, 13, SendFlags.SIGNALED, 0, 64), 1);
        return new Completion[] {one(p.serverCq), one(p.clientCq)};
    }

    @Test
    default void aReceiveTooSmallForTheMessageFailsBothSides() {
        Completion[] c = tooSmallAReceive();
        assertThat(c[0].status()).as("the receiver's completion").isNotEqualTo(WcStatus.SUCCESS);
        assertThat(c[0].wrId()).isEqualTo(1000);
        assertThat(c[1].status()).as("the sender learns it failed").isNotEqualTo(WcStatus.SUCCESS);
        assertThat(c[1].wrId()).isEqualTo(13);
    }

    @Test
    default void aReceiveTooSmallForTheMessageIsALocalLengthError() {
        provider().assume(Capability.LOCAL_LENGTH_ERROR);
        Completion[] c = tooSmallAReceive();
        assertThat(c[0].status()).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(c[1].status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    default void outstandingReceivesFlushWhenTheConnectionIsTornDown() {
        RcPair p = RcPair.connect(this);
        postReceives(p.clientQp, p.clientMem, 0, 1024, 4, 2000);
        p.client.disconnect();
        List<Completion> client = pump().completions(p.clientCq, 4);
        assertThat(client).hasSize(4).allSatisfy(c -> assertThat(c.status()).isEqualTo(WcStatus.WR_FLUSH_ERR));
        assertThat(client.stream().map(Completion::wrId).toList()).containsExactlyInAnyOrder(2000L, 2001L, 2002L, 2003L);
        pump().expect(p.serverChannel, dev.ibex.cm.spi.CmEventType.DISCONNECTED);
        p.server.disconnect();
        List<Completion> server = pump().completions(p.serverCq, 8);
        assertThat(server).hasSize(8).allSatisfy(c -> assertThat(c.status()).isEqualTo(WcStatus.WR_FLUSH_ERR));
    }

    @Test
    default void aCompletionChannelNotifiesArmedCqsAndUnackedEventsDoNotBlockClose() {
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        DeviceContext device = listener.device();
        ProtectionDomain pd = scope().add(device.allocPd());
        CompletionChannel channel = scope().add(device.createCompletionChannel());
        pump().watch(channel);
        scope().add(() -> pump().forget(channel));
        CompletionQueue cq = scope().add(device.createCompletionQueue(16, channel, 0));
        assertThat(cq.channel()).isSameAs(channel);
        assertThat(cq.capacity()).isGreaterThanOrEqualTo(16);
        Registered mem = Registered.of(scope(), pd, RcPair.BUFFER);
        cq.requestNotify(false);
        RcPair p = RcPair.connect(this, new RcPair.Options().channels(s, null).listener(listener).serverSide(pd, cq, mem));

        p.clientMem.put(0, "notify");
        p.clientQp.postSend(post(p, WrOpcode.SEND, 1, SendFlags.SIGNALED, 0, 6), 1);
        assertThat(pump().nextNotification(channel)).isSameAs(cq);
        assertThatThrownBy(() -> cq.ackEvents(2)).as("more than received").isInstanceOf(IllegalArgumentException.class);
        cq.requestNotify(false);
        assertOk(one(cq), WcOpcode.RECV);
        cq.ackEvents(1);

        p.clientQp.postSend(post(p, WrOpcode.SEND, 2, SendFlags.SIGNALED, 0, 6), 1);
        assertThat(pump().nextNotification(channel)).isSameAs(cq);
        assertOk(one(cq), WcOpcode.RECV);
        // this notification stays unacknowledged: closing the CQ (after its QP) must settle it, not hang
        p.serverQp.close();
        cq.close();
        assertThatThrownBy(() -> cq.poll(CompletionBatch.allocate(scope().arena(), 1)))
                .isInstanceOf(IllegalStateException.class);
    }
}
