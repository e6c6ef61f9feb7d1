package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Device async events routed to their QP/SRQ: SRQ limit, last WQE reached, path migration. */
public interface AsyncEventConformance extends Conformance {

    /** A pair whose server QP takes its receives from an SRQ holding {@code receives} buffers. */
    private RcPair srqPair(SharedReceiveQueue[] out, int receives) {
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        DeviceContext device = listener.device();
        ProtectionDomain pd = scope().add(device.allocPd());
        Registered mem = Registered.of(scope(), pd, RcPair.BUFFER);
        SharedReceiveQueue srq = scope().add(pd.createSharedReceiveQueue(32, 1, 0));
        RecvBatch r = recvs(receives, 1);
        for (int i = 0; i < receives; i++) {
            r.wrId(i, 600 + i).single(i, mem.address(i * 512L), 512, mem.lkey());
        }
        srq.postRecv(r, receives);
        out[0] = srq;
        return RcPair.connect(this, new RcPair.Options().channels(s, null).listener(listener)
                .serverSide(pd, cq(listener, 64), mem).srq(srq));
    }

    private void sendSome(RcPair p, int n) {
        SendBatch b = sends(n, 1);
        for (int i = 0; i < n; i++) {
            b.wrId(i, i).opcode(i, WrOpcode.SEND).flags(i, SendFlags.SIGNALED)
                    .single(i, p.clientMem.address(i * 64L), 32, p.clientMem.lkey());
        }
        p.clientQp.postSend(b, n);
        assertThat(pump().completions(p.clientCq, n)).allSatisfy(c -> assertThat(c.status()).isEqualTo(WcStatus.SUCCESS));
    }

    @Test
    default void anArmedSrqReportsItsLimitOnceAndDisarms() {
        provider().assume(Capability.SRQ_LIMIT_EVENT);
        SharedReceiveQueue[] srq = new SharedReceiveQueue[1];
        RcPair p = srqPair(srq, 8);
        srq[0].modify(0, 6, SharedReceiveQueue.LIMIT);
        assertThat(srq[0].query().srqLimit()).isEqualTo(6);
        sendSome(p, 3);
        AsyncEvent e = pump().expectAsync(p.server.device(), AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(e.srq()).isSameAs(srq[0]);
        assertThat(e.device()).isSameAs(p.server.device());
        assertThat(srq[0].query().srqLimit()).as("one-shot: disarmed").isZero();
        assertThat(pump().completions(p.serverCq, 3)).hasSize(3);
    }

    @Test
    default void aQpOnAnSrqReportsItsLastWqeWhenItFails() {
        provider().assume(Capability.LAST_WQE_REACHED);
        SharedReceiveQueue[] srq = new SharedReceiveQueue[1];
        RcPair p = srqPair(srq, 4);
        p.serverQp.modify(new QpAttr().state(QpState.ERR));
        AsyncEvent e = pump().expectAsync(p.server.device(), AsyncEventType.QP_LAST_WQE_REACHED);
        assertThat(e.qp()).isSameAs(p.serverQp);
    }

    /**
     * A CQ nobody polls overruns: the device raises CQ_ERR naming it (rxe's {@code rxe_cq_post} on a full queue;
     * soft-roce also moves the QP that completed into it to ERR). The CQ is created for two entries; a provider may
     * round that up (rxe to a power of two minus one), so the client posts many more signaled WRITEs.
     */
    @Test
    default void anOverrunCqReportsCqErr() {
        RcPair p = RcPair.connect(this, new RcPair.Options().clientCqEntries(2));
        overrunClientCq(p);
        AsyncEvent e = pump().expectAsync(p.client.device(), AsyncEventType.CQ_ERR);
        assertThat(e.cq()).isSameAs(p.clientCq);
        assertThat(e.device()).isSameAs(p.client.device());
    }

    /**
     * Two fabrics of one process share a device's async fd on rdma-core (librdmacm opens each device once), and the
     * kernel gives each event to whichever reads first. Here the other fabric reads the device while this one's CQ
     * overruns: the CQ_ERR still reaches this fabric, naming its CQ, and never the other.
     */
    @Test
    default void anAsyncEventReachesTheFabricThatOwnsItsObjectWhicheverFabricReadsIt() {
        Fabric other = provider().openSecond();
        Scope otherScope = new Scope();
        try {
            EventPump otherPump = otherScope.add(new EventPump(other, otherScope, pump().timeout()));
            RcPair p = RcPair.connect(this, new RcPair.Options().clientCqEntries(2));
            String name = p.client.device().device().name();
            List<DeviceContext> same = other.devices().stream().filter(d -> d.device().name().equals(name)).toList();
            same.forEach(d -> otherPump.watch(d.asyncEvents()));
            overrunClientCq(p);
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos(); // the overrun takes milliseconds
            while (System.nanoTime() < until) {
                otherPump.pump(TimeUnit.MILLISECONDS.toNanos(20)); // the other fabric reads the device first
            }
            AsyncEvent e = pump().expectAsync(p.client.device(), AsyncEventType.CQ_ERR);
            assertThat(e.cq()).isSameAs(p.clientCq);
            assertThat(e.device()).isSameAs(p.client.device());
            for (DeviceContext d : same) {
                assertThat(otherPump.queued(d.asyncEvents())).as("the other fabric's events")
                        .noneMatch(x -> ((AsyncEvent) x).type() == AsyncEventType.CQ_ERR);
            }
        } finally {
            otherScope.close();
            other.close();
        }
    }

    /** 16 signaled WRITEs from the client of a pair whose client CQ holds 2 (or a few more, rounded up): it overruns. */
    private void overrunClientCq(RcPair p) {
        int n = 16;
        SendBatch b = sends(n, 1);
        for (int i = 0; i < n; i++) {
            b.wrId(i, 900 + i).opcode(i, WrOpcode.RDMA_WRITE).flags(i, SendFlags.SIGNALED)
                    .single(i, p.clientMem.address(i * 8L), 8, p.clientMem.lkey())
                    .rdma(i, p.serverMem.address(i * 8L), p.serverMem.rkey());
        }
        p.clientQp.postSend(b, n);
    }

    /** Loads each QP's own primary path as its alternate and re-arms it (the IBA allows the same path). */
    private static void rearmWithPrimary(QueuePair qp) {
        QpAttr now = qp.query(QpAttr.ALL);
        qp.modify(new QpAttr().altPath(now.ahAttr(), now.portNum(), now.timeout())
                .altPkeyIndex(now.pkeyIndex()).pathMigState(MigState.REARM));
    }

    /** RDMA WRITEs from the client (their ACKs flow back) until {@code done}, bounded by the pump's timeout. */
    private void writeUntil(RcPair p, java.util.function.BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + pump().timeout().toNanos();
        long id = 7000;
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(what).isNegative();
            SendBatch b = sends(1, 1);
            b.wrId(0, id++).opcode(0, WrOpcode.RDMA_WRITE).flags(0, SendFlags.SIGNALED)
                    .single(0, p.clientMem.address(0), 8, p.clientMem.lkey())
                    .rdma(0, p.serverMem.address(0), p.serverMem.rkey());
            p.clientQp.postSend(b, 1);
            assertThat(pump().completions(p.clientCq, 1)).hasSize(1);
        }
    }

    /**
     * IBA 17.2.8: REARM becomes ARMED only on the wire — both ends re-armed and a packet (an ACK counts) showed it;
     * a forced migration is PATH_MIG at once on the forcing end and, once its next packet arrives over the alternate,
     * on the peer.
     */
    @Test
    default void aForcedPathMigrationIsReportedAsPathMig() {
        provider().assume(Capability.APM);
        RcPair p = RcPair.connect(this);
        assertThat(p.client.device().queryDevice().supportsAutoPathMigration()).isTrue();
        rearmWithPrimary(p.clientQp);
        rearmWithPrimary(p.serverQp);
        writeUntil(p, () -> p.clientQp.query(QpAttr.PATH_MIG_STATE).pathMigState() == MigState.ARMED
                && p.serverQp.query(QpAttr.PATH_MIG_STATE).pathMigState() == MigState.ARMED, "both QPs ARMED");
        p.clientQp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
        AsyncEvent e = pump().expectAsync(p.client.device(), AsyncEventType.PATH_MIG);
        assertThat(e.qp()).isSameAs(p.clientQp);
        assertThat(p.clientQp.query(QpAttr.PATH_MIG_STATE).pathMigState()).isEqualTo(MigState.MIGRATED);
        writeUntil(p, () -> p.serverQp.query(QpAttr.PATH_MIG_STATE).pathMigState() == MigState.MIGRATED,
                "the server QP migrating on the client's next packet");
        AsyncEvent s = pump().expectAsync(p.server.device(), AsyncEventType.PATH_MIG);
        assertThat(s.qp()).isSameAs(p.serverQp);
    }

    /** Loading an alternate re-arms the QP (REARM), never straight to ARMED, and leaves it in RTS. */
    @Test
    default void anAlternatePathLoadsAndReArms() {
        provider().assume(Capability.APM);
        RcPair p = RcPair.connect(this);
        rearmWithPrimary(p.clientQp);
        assertThat(p.clientQp.query(QpAttr.PATH_MIG_STATE).pathMigState()).as("ARMED needs the peer")
                .isEqualTo(MigState.REARM);
        assertThat(p.clientQp.state()).isEqualTo(QpState.RTS);
        assertThatThrownBy(() -> p.clientQp.modify(new QpAttr().pathMigState(MigState.MIGRATED)))
                .as("a forced migration needs ARMED").isInstanceOfSatisfying(RdmaException.class,
                        x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    default void devicesReportWhetherTheyClaimApm() {
        List<Boolean> claims = fabric().devices().stream().map(d -> d.queryDevice().supportsAutoPathMigration()).toList();
        assertThat(claims).isNotEmpty();
        if (provider().has(Capability.APM)) {
            assertThat(claims).as("a provider with APM claims it").contains(true);
        }
    }
}
