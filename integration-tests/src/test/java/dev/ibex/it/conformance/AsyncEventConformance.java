package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.time.Duration;
import java.util.List;
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

    @Test
    default void aForcedPathMigrationIsReportedAsPathMig() {
        provider().assume(Capability.APM);
        RcPair p = RcPair.connect(this);
        assertThat(p.client.device().queryDevice().supportsAutoPathMigration()).isTrue();
        QpAttr now = p.clientQp.query(QpAttr.ALL);
        p.clientQp.modify(new QpAttr().altPath(now.ahAttr(), now.portNum(), now.timeout())
                .altPkeyIndex(now.pkeyIndex()).pathMigState(MigState.REARM));
        long deadline = System.nanoTime() + pump().timeout().toNanos();
        while (p.clientQp.query(QpAttr.PATH_MIG_STATE).pathMigState() != MigState.ARMED) {
            assertThat(System.nanoTime() - deadline).as("the QP never became ARMED").isNegative();
            pump().pump(Duration.ofMillis(10).toNanos());
        }
        p.clientQp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
        AsyncEvent e = pump().expectAsync(p.client.device(), AsyncEventType.PATH_MIG);
        assertThat(e.qp()).isSameAs(p.clientQp);
        assertThat(p.clientQp.query(QpAttr.PATH_MIG_STATE).pathMigState()).isEqualTo(MigState.MIGRATED);
    }

    @Test
    default void anAlternatePathLoadsAndArms() {
        provider().assume(Capability.APM);
        RcPair p = RcPair.connect(this);
        QpAttr now = p.clientQp.query(QpAttr.ALL);
        p.clientQp.modify(new QpAttr().altPath(now.ahAttr(), now.portNum(), now.timeout())
                .altPkeyIndex(now.pkeyIndex()).pathMigState(MigState.REARM));
        assertThat(p.clientQp.query(QpAttr.PATH_MIG_STATE).pathMigState()).isIn(MigState.REARM, MigState.ARMED);
        assertThat(p.clientQp.state()).isEqualTo(QpState.RTS);
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
