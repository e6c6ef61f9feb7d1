package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The APM attributes and the migration state machine's software rules (IBA 17.2.8, rdmavt's
 * {@code rvt_modify_qp}): what a device with a second path reports, which modifies are refused with EINVAL and
 * leave the QP as it was, REARM → ARMED only on the wire, forced migration only from ARMED.
 */
class ApmRulesTest {

    private static Harness.Params params() {
        Harness.Params p = new Harness.Params();
        p.timeout = 16;
        return p;
    }

    @Test
    void devicesWithASecondPathClaimApmAndReportTheirPorts() {
        try (ApmPair two = new ApmPair(true, params(), Map.of())) {
            DeviceAttributes attrs = two.da.queryDevice();
            assertThat(attrs.physPortCount()).isEqualTo(2);
            assertThat(attrs.supportsAutoPathMigration()).isTrue();
            assertThat(two.da.migratesPaths(1)).isTrue();
            assertThat(two.da.migratesPaths(2)).isTrue();
            assertThat(two.da.queryPort(2).linkLayer()).isEqualTo(PortAttributes.LINK_LAYER_ETHERNET);
            assertThat(two.da.queryPort(2).gidTableLength()).isEqualTo(1);
            assertThat(two.da.queryGid(2, 0).toString()).contains("127.0.0.12");
            assertThat(two.da.portOf(ApmPair.ip(ApmPair.A2))).isEqualTo(2);
            assertThat(two.da.gidIndexOf(ApmPair.ip(ApmPair.A2))).isZero();
            assertThatThrownBy(() -> two.da.queryPort(3)).isInstanceOf(RdmaException.class)
                    .hasMessageContaining("ports 1..2");
            // taking a port down is visible in queryPort and as PORT_ERR / PORT_ACTIVE
            two.da.setPortActive(2, false);
            assertThat(two.da.queryPort(2).isActive()).isFalse();
            two.da.setPortActive(2, true);
            assertThat(two.events(two.da)).extracting(e -> e.type())
                    .containsExactly(AsyncEventType.PORT_ERR, AsyncEventType.PORT_ACTIVE);
            assertThat(two.events(two.da)).extracting(e -> e.port()).containsExactly(2, 2);
        }
        try (ApmPair gids = new ApmPair(false, params(), Map.of())) {
            assertThat(gids.da.queryDevice().physPortCount()).isEqualTo(1);
            assertThat(gids.da.queryDevice().supportsAutoPathMigration()).isTrue();
            assertThat(gids.da.queryPort(1).gidTableLength()).isEqualTo(2);
            assertThat(gids.da.gidIndexOf(ApmPair.ip(ApmPair.A2))).isEqualTo(1);
        }
        // one address, one port: no alternate is possible, so no APM claimed
        try (Harness h = new Harness()) {
            assertThat(h.a.queryDevice().supportsAutoPathMigration()).isFalse();
            assertThat(h.a.migratesPaths(1)).isFalse();
            assertThat(h.a.queryDevice().physPortCount()).isEqualTo(1);
        }
    }

    @Test
    void softwareRulesOfThePathMigrationState() {
        try (ApmPair p = new ApmPair(true, params(), Map.of())) {
            Side x = p.x;
            assertThat(p.mig(x)).as("every QP starts MIGRATED").isEqualTo(MigState.MIGRATED);
            AhAttr alt = p.path(p.da, ApmPair.A2, ApmPair.B2);

            refused(x.qp, new QpAttr().pathMigState(MigState.ARMED), "MIGRATED or REARM only");
            refused(x.qp, new QpAttr().pathMigState(MigState.REARM), "needs an alternate path");
            refused(x.qp, new QpAttr().altPath(alt, 2, 32).altPkeyIndex(0), "alt_timeout");
            refused(x.qp, new QpAttr().altPath(alt, 3, 14).altPkeyIndex(0), "alt_port_num 3");
            refused(x.qp, new QpAttr().altPath(alt, 1, 14).altPkeyIndex(0), "must name the alternate port");
            refused(x.qp, new QpAttr().altPath(alt, 2, 14).altPkeyIndex(1), "alt_pkey_index");
            refused(x.qp, new QpAttr().altPath(alt, 2, 14).altPkeyIndex(0).pathMigState(MigState.REARM)
                    .state(QpState.SQD), "not allowed"); // RTS → SQD takes neither bit
            // MIGRATED while MIGRATED: a no-op, as in rdmavt, and no event
            x.qp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
            assertThat(p.count(x, AsyncEventType.PATH_MIG)).isZero();

            // load + REARM; ARMED is reached only by the wire
            p.rearm(x, ApmPair.A2, ApmPair.B2);
            assertThat(p.mig(x)).isEqualTo(MigState.REARM);
            assertThat(x.qp.query(QpAttr.ALT_PATH).altPortNum()).isEqualTo(2);
            refused(x.qp, new QpAttr().pathMigState(MigState.MIGRATED), "REARM");
            p.stream(20, Duration.ofSeconds(10));
            assertThat(p.mig(x)).as("the peer still sends MigReq = 1: no ARMED").isEqualTo(MigState.REARM);
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
            p.rearm(p.y, ApmPair.B2, ApmPair.A2);
            p.armByTraffic();
            assertThat(p.events(p.da)).as("arming raises no event").isEmpty();
            assertThat(p.events(p.db)).isEmpty();

            refused(x.qp, new QpAttr().pathMigState(MigState.REARM), "already ARMED");
            refused(x.qp, new QpAttr().altPath(alt, 2, 14).altPkeyIndex(0), "while the QP is ARMED");
            refused(x.qp, new QpAttr().state(QpState.SQD).pathMigState(MigState.MIGRATED), "not allowed");
            assertThat(p.mig(x)).as("refused modifies change nothing").isEqualTo(MigState.ARMED);
            assertThat(x.qp.state()).isEqualTo(QpState.RTS);
        }
    }

    /**
     * A requester whose retries run out just as the peer's MigReq = 1 migrates its QP on the receiving thread must
     * resend on the new primary, not fail: the decision is taken on one snapshot, whose migration count says the QP
     * moved during the retry cycle (it read "no longer ARMED" instead, and ApmStreamTest's server failed with
     * RETRY_EXC_ERR about once in 60 runs under load when both ends' retries ran out together).
     */
    @Test
    void retriesThatRunOutAfterThePeerMigratedTheQpResendOnTheNewPrimary() {
        try (ApmPair p = new ApmPair(true, params(), Map.of())) {
            p.rearmBoth(ApmPair.A2, ApmPair.B2);
            p.armByTraffic();
            PathMigration yPaths = ((SoftQueuePair) p.y.qp).paths();
            long cycleBegan = yPaths.current().migrations();
            // x migrates (forced); its next packets carry MigReq = 1 on the alternate and migrate y on the wire
            p.x.qp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
            p.stream(4, Duration.ofSeconds(10));
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
            assertThat(yPaths.current().migrations()).isEqualTo(cycleBegan + 1);

            assertThat(yPaths.retriesExhausted(cycleBegan)).isEqualTo(PathMigration.Exhausted.MIGRATED_MEANWHILE);
            // a cycle that began after the migration: the QP is not armed, so the WQE fails
            assertThat(yPaths.retriesExhausted(cycleBegan + 1)).isEqualTo(PathMigration.Exhausted.NOT_ARMED);
            assertThat(p.count(p.y, AsyncEventType.PATH_MIG)).isEqualTo(1);
            assertThat(p.count(p.y, AsyncEventType.PATH_MIG_ERR)).isZero();
        }
    }

    @Test
    void initToRtrTakesAnAlternatePathButNoMigrationState() {
        try (ApmPair p = new ApmPair(true, params(), Map.of())) {
            Side s = p.h.side(p.h.a, 4096, new QpCap(4, 4, 1, 1, 0), true, null, null);
            Harness.toInit(s.qp, p.params);
            AhAttr alt = p.path(p.da, ApmPair.A2, ApmPair.B2);
            QpAttr rtr = new QpAttr().state(QpState.RTR).ahAttr(Harness.path(p.h.b)).pathMtu(Mtu.MTU_1024)
                    .destQpNum(9).rqPsn(1).maxDestRdAtomic(1).minRnrTimer(1);
            refused(s.qp, rtr.altPath(alt, 2, 14).altPkeyIndex(0).pathMigState(MigState.REARM), "not allowed");
            rtr = new QpAttr().state(QpState.RTR).ahAttr(Harness.path(p.h.b)).pathMtu(Mtu.MTU_1024).destQpNum(9)
                    .rqPsn(1).maxDestRdAtomic(1).minRnrTimer(1).altPath(alt, 2, 14).altPkeyIndex(0);
            s.qp.modify(rtr);
            assertThat(s.qp.query(QpAttr.ALT_PATH).altAhAttr().dgid().toString()).contains("127.0.0.13");
            assertThat(p.mig(s)).isEqualTo(MigState.MIGRATED);
            // RTR → RTS may REARM (the IB CM's cm_init_qp_rts_attr)
            s.qp.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(1).maxRdAtomic(1)
                    .pathMigState(MigState.REARM));
            assertThat(p.mig(s)).isEqualTo(MigState.REARM);
            s.qp.close();
        }
    }

    private static void refused(QueuePair qp, QpAttr attr, String why) {
        QpAttr before = qp.query(QpAttr.PATH_MIG_STATE | QpAttr.ALT_PATH);
        assertThatThrownBy(() -> qp.modify(attr)).isInstanceOf(RdmaException.class)
                .hasMessageContaining(why)
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EINVAL));
        QpAttr after = qp.query(QpAttr.PATH_MIG_STATE | QpAttr.ALT_PATH);
        assertThat(after.pathMigState()).isEqualTo(before.pathMigState());
        assertThat(after.altAhAttr()).isEqualTo(before.altAhAttr());
    }
}
