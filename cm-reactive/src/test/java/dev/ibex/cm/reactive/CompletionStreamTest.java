package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * {@link RdmaCompletionQueue} on soft-roce: two RC QPs connected by hand (the client's on the stream's CQ), RDMA
 * WRITEs posted by the test, their completions taken as demand allows.
 */
@Timeout(60)
class CompletionStreamTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    final SoftHosts hosts = new SoftHosts();
    final Arena arena = Arena.ofShared();
    final DeviceContext cdev = hosts.clientFabric.devices().get(0);
    final DeviceContext sdev = hosts.serverFabric.devices().get(0);
    final RdmaCompletionQueue stream = RdmaCompletionQueue.open(hosts.client.next(), cdev, 256, 4);
    final ProtectionDomain cpd = cdev.allocPd();
    final ProtectionDomain spd = sdev.allocPd();
    final CompletionQueue scq = sdev.createCompletionQueue(256, null, 0);
    final QueuePair cqp = cpd.createQueuePair(new QpInitAttr(stream.cq(), stream.cq(), null,
            new QpCap(128, 1, 1, 1, 0), QpType.RC, false, null));
    final QueuePair sqp = spd.createQueuePair(new QpInitAttr(scq, scq, null, new QpCap(1, 1, 1, 1, 0), QpType.RC,
            false, null));
    final MemorySegment cbuf = arena.allocate(4096, 4096);
    final MemorySegment sbuf = arena.allocate(4096, 4096);
    final MemoryRegion cmr = cpd.registerMemory(cbuf, EnumSet.of(Access.LOCAL_WRITE));
    final MemoryRegion smr = spd.registerMemory(sbuf, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
    final SendBatch batch = SendBatch.allocate(arena, 64, 1);
    long nextWrId;

    CompletionStreamTest() {
        connect(cqp, sqp);
    }

    /** Connects a client QP and a server QP by hand (RESET → INIT → RTR → RTS). */
    void connect(QueuePair c, QueuePair s) {
        int access = Access.mask(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        for (QueuePair qp : List.of(c, s)) {
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(access));
        }
        toRtr(c, sdev, s.qpNum(), 0x200);
        toRtr(s, cdev, c.qpNum(), 0x100);
        c.modify(new QpAttr().state(QpState.RTS).timeout(18).retryCnt(7).rnrRetry(7).sqPsn(0x100).maxRdAtomic(1));
        s.modify(new QpAttr().state(QpState.RTS).timeout(18).retryCnt(7).rnrRetry(7).sqPsn(0x200).maxRdAtomic(1));
    }

    private static void toRtr(QueuePair qp, DeviceContext peer, int peerQpn, int peerPsn) {
        qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.roce(peer.queryGid(1, 0), 0, 1))
                .pathMtu(Mtu.MTU_1024).destQpNum(peerQpn).rqPsn(peerPsn).maxDestRdAtomic(1).minRnrTimer(1));
    }

    @AfterEach
    void close() {
        cqp.close();
        sqp.close();
        stream.close();
        cmr.close();
        smr.close();
        scq.close();
        cpd.close();
        spd.close();
        hosts.close();
        arena.close();
    }

    /** Posts {@code n} signaled 8-byte RDMA WRITEs with the next wr ids. */
    void write(int n) {
        write(cqp, n);
    }

    void write(QueuePair qp, int n) {
        for (int i = 0; i < n; i++) {
            batch.clear(i).wrId(i, nextWrId++).opcode(i, WrOpcode.RDMA_WRITE).flags(i, SendFlags.SIGNALED)
                    .rdma(i, smr.address() + 8L * i, smr.rkey()).single(i, cmr.address(), 8, cmr.lkey());
        }
        qp.postSend(batch, n);
    }

    /** A subscriber that requests only what the test says. */
    static final class Taker extends BaseSubscriber<RdmaCompletion> {
        final List<RdmaCompletion> got = new CopyOnWriteArrayList<>();
        volatile boolean completed;
        volatile Throwable error;

        @Override
        protected void hookOnError(Throwable t) {
            error = t;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            // demand comes from the test
        }

        @Override
        protected void hookOnNext(RdmaCompletion c) {
            got.add(c);
        }

        @Override
        protected void hookOnComplete() {
            completed = true;
        }

        List<Long> ids() {
            return got.stream().map(RdmaCompletion::wrId).toList();
        }
    }

    static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }

    int unacked() {
        return LoopCall.call(stream.loop(), stream::unacked);
    }

    @Test
    void pollingArmingAndAckingFollowDemand() throws Exception {
        Taker first = new Taker();
        stream.completions().subscribe(first);
        first.request(3); // the CQ is empty: armed, then woken by the first completion
        LoopCall.call(stream.loop(), () -> true); // the subscription and its request reached the loop: armed now
        write(10);
        await().atMost(WAIT).until(() -> first.got.size() == 3);
        assertThat(first.ids()).isEqualTo(range(0, 3));
        RdmaCompletion c = first.got.get(0);
        assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(c.qpNum()).isEqualTo(cqp.qpNum());
        Thread.sleep(200);
        assertThat(first.got).as("nothing beyond the demand").hasSize(3);

        first.cancel(); // acks what it took; the other 7 stay in the CQ
        assertThat(unacked()).isZero();
        assertThat(LoopCall.call(stream.loop(), stream::eventsTaken)).isPositive();

        Taker second = new Taker();
        stream.completions().subscribe(second);
        second.request(Long.MAX_VALUE);
        await().atMost(WAIT).until(() -> second.got.size() == 7);
        assertThat(second.ids()).isEqualTo(range(3, 10));
        // with demand left the CQ is armed: new completions arrive by notification, in batches of acks
        for (int round = 0; round < 10; round++) {
            write(5);
            int expected = 7 + 5 * (round + 1);
            await().atMost(WAIT).until(() -> second.got.size() == expected);
        }
        assertThat(second.ids()).isEqualTo(range(3, 60));
        assertThat(unacked()).as("acknowledged in batches of 4").isLessThan(4);
        second.cancel();
        assertThat(unacked()).isZero();
        assertThat(sbuf.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).isZero(); // the writes wrote cbuf's zeros
    }

    @Test
    void aCopyOutlivesTheBatchAndCloseCompletesTheSubscriber() {
        Taker t = new Taker();
        stream.completions().subscribe(t);
        t.request(Long.MAX_VALUE);
        write(40); // more than the largest batch: the batch is reused while the copies stay
        await().atMost(WAIT).until(() -> t.got.size() == 40);
        assertThat(t.ids()).isEqualTo(range(0, 40));
        assertThat(t.got).allSatisfy(c -> assertThat(c.isSuccess()).isTrue());

        Taker other = new Taker();
        stream.completions().subscribe(other);
        other.request(1);
        await().atMost(WAIT).until(() -> other.error != null);
        assertThat(other.error).isInstanceOf(IllegalStateException.class).hasMessageContaining("already have a subscriber");

        cqp.close(); // QPs first, then the CQ
        stream.close();
        await().atMost(WAIT).until(() -> t.completed);
    }

    @Test
    void anOverrunCqIsCqErrAndQpFatalOnTheDevicesEventStream() {
        List<dev.ibex.cm.spi.AsyncEvent> events = new CopyOnWriteArrayList<>();
        reactor.core.Disposable watching = RdmaDeviceEvents.of(hosts.client, cdev).subscribe(events::add);
        LoopCall.call(hosts.client.loops().get(0), () -> true); // the subscription is watching
        CompletionQueue tiny = cdev.createCompletionQueue(2, null, 0);
        QueuePair c = cpd.createQueuePair(new QpInitAttr(tiny, tiny, null, new QpCap(16, 1, 1, 1, 0), QpType.RC,
                false, null));
        QueuePair s = spd.createQueuePair(new QpInitAttr(scq, scq, null, new QpCap(1, 1, 1, 1, 0), QpType.RC,
                false, null));
        try {
            connect(c, s);
            write(c, 8); // nobody polls a CQ of two entries
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(events).anySatisfy(e -> {
                    assertThat(e.type()).isEqualTo(dev.ibex.cm.spi.AsyncEventType.CQ_ERR);
                    assertThat(e.cq()).isSameAs(tiny);
                });
                assertThat(events).anySatisfy(e -> {
                    assertThat(e.type()).isEqualTo(dev.ibex.cm.spi.AsyncEventType.QP_FATAL);
                    assertThat(e.qp()).isSameAs(c);
                });
            });
        } finally {
            watching.dispose();
            c.close();
            s.close();
            tiny.close();
        }
    }
}
