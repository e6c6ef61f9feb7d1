package dev.ibex.softroce.transport;

import static dev.ibex.cm.spi.AsyncEventType.PATH_MIG;
import static dev.ibex.cm.spi.AsyncEventType.PATH_MIG_ERR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import org.awaitility.Awaitility;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every scenario of the APM events table (docs/apm.md) on hand-connected RC QPs, with the second path on a second
 * port or as a second GID of port 1: a SEND stream x → y is cut on the primary (black hole, both directions) and
 * the events, the migration state, the send completions and the exactly-once, in-order delivery are checked.
 * Timeout 16 at timer scale 0.1 (27 ms) with seven retries: about 215 ms from the cut to the migration, far above
 * the scheduling stalls of a loaded machine.
 */
class ApmMigrationTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static Harness.Params params() {
        Harness.Params p = new Harness.Params();
        p.timeout = 16;
        p.retryCnt = 7;
        return p;
    }

    private static ApmPair armed(boolean twoPorts) {
        ApmPair p = new ApmPair(twoPorts, params(), Map.of());
        p.rearmBoth(ApmPair.A2, ApmPair.B2);
        p.armByTraffic();
        return p;
    }

    @ParameterizedTest(name = "two ports: {0}")
    @ValueSource(booleans = {true, false})
    void primaryCutMigratesBothEndsWithNothingLostOrDuplicated(boolean twoPorts) {
        try (ApmPair p = armed(twoPorts)) {
            long cutAt = p.sent + 500;
            p.runUntil(() -> p.sent >= cutAt, cutAt, WAIT, "500 messages");
            p.cut(ApmPair.A, ApmPair.B);
            p.stream(2000, WAIT);
            assertThat(p.sendError).as("no send failed").isNull();
            assertThat(p.count(p.x, PATH_MIG)).isEqualTo(1);
            p.awaitEvent(p.y, PATH_MIG, WAIT);
            assertThat(p.count(p.y, PATH_MIG)).isEqualTo(1);
            assertThat(p.mig(p.x)).isEqualTo(MigState.MIGRATED);
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
            assertThat(p.primaryFrom(p.x)).isEqualTo(ApmPair.A2);
            assertThat(p.primaryFrom(p.y)).isEqualTo(ApmPair.B2);
            QpAttr q = p.x.qp.query(QpAttr.AV | QpAttr.PORT);
            assertThat(q.portNum()).isEqualTo(twoPorts ? 2 : 1);
            assertThat(q.ahAttr().dgid().toString()).contains("127.0.0.13");
            assertThat(p.count(p.x, PATH_MIG_ERR) + p.count(p.y, PATH_MIG_ERR)).isZero();
        }
    }

    @Test
    void alternateAlsoDeadMigratesThenFailsWithRetryExceeded() {
        try (ApmPair p = armed(true)) {
            p.stream(100, WAIT);
            p.cut(ApmPair.A, ApmPair.B);
            p.cut(ApmPair.A2, ApmPair.B2);
            p.runUntil(() -> p.sendError != null, p.sent + 100, WAIT, "a failed send");
            assertThat(p.sendError).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(p.count(p.x, PATH_MIG)).isEqualTo(1);
            assertThat(p.count(p.y, PATH_MIG)).isZero();
            assertThat(p.x.qp.state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    void localAlternatePortDownIsPathMigErrThenRetryExceeded() {
        try (ApmPair p = armed(true)) {
            p.stream(100, WAIT);
            p.da.setPortActive(2, false);
            p.cut(ApmPair.A, ApmPair.B);
            p.runUntil(() -> p.sendError != null, p.sent + 100, WAIT, "a failed send");
            assertThat(p.sendError).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(p.count(p.x, PATH_MIG_ERR)).isEqualTo(1);
            assertThat(p.count(p.x, PATH_MIG)).isZero();
            assertThat(p.mig(p.x)).as("no migration happened").isEqualTo(MigState.ARMED);
        }
    }

    @Test
    void alternatesThatDoNotMirrorEachOtherArePathMigErrAtTheResponder() {
        try (ApmPair p = new ApmPair(true, params(), Map.of())) {
            p.rearm(p.x, ApmPair.A2, ApmPair.B2);
            p.rearm(p.y, ApmPair.B2, ApmPair.A); // not the mirror of x's a' → b'
            p.armByTraffic();
            p.cut(ApmPair.A, ApmPair.B);
            p.runUntil(() -> p.sendError != null, p.sent + 100, WAIT, "a failed send");
            assertThat(p.sendError).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(p.count(p.x, PATH_MIG)).as("the requester migrated").isEqualTo(1);
            p.awaitEvent(p.y, PATH_MIG_ERR, WAIT);
            assertThat(p.count(p.y, PATH_MIG_ERR)).as("once per arm cycle").isEqualTo(1);
            assertThat(p.count(p.y, PATH_MIG)).isZero();
            assertThat(((SoftQueuePair) p.y.qp).paths().dropped()).isPositive();
        }
    }

    @Test
    void notArmedMeansRetryExceededAndNoMigration() {
        try (ApmPair p = new ApmPair(true, params(), Map.of())) {
            p.rearm(p.x, ApmPair.A2, ApmPair.B2); // only one side re-arms: neither becomes ARMED
            p.stream(100, WAIT);
            assertThat(p.mig(p.x)).isEqualTo(MigState.REARM);
            p.cut(ApmPair.A, ApmPair.B);
            p.runUntil(() -> p.sendError != null, p.sent + 100, WAIT, "a failed send");
            assertThat(p.sendError).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(p.count(p.x, PATH_MIG) + p.count(p.x, PATH_MIG_ERR)).isZero();
        }
    }

    @Test
    void rnrRetriesNeverMigrate() {
        Harness.Params params = params();
        params.rnrRetry = 3;
        try (ApmPair p = new ApmPair(true, params, Map.of())) {
            p.rearmBoth(ApmPair.A2, ApmPair.B2);
            p.armByTraffic();
            p.postReceives = false;
            long until = p.posted + 10; // past every receive y has posted
            p.runUntil(() -> p.sendError != null, until, WAIT, "RNR retries to run out");
            assertThat(p.sendError).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
            assertThat(p.count(p.x, PATH_MIG) + p.count(p.x, PATH_MIG_ERR)).isZero();
            assertThat(p.mig(p.x)).isEqualTo(MigState.ARMED);
        }
    }

    @Test
    void forcedMigrationWithTrafficInFlightLosesNothing() {
        try (ApmPair p = armed(false)) {
            long at = p.sent + 300;
            p.runUntil(() -> p.sent >= at, at, WAIT, "300 messages");
            p.x.qp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
            assertThat(p.count(p.x, PATH_MIG)).as("raised at once on the forcing side").isEqualTo(1);
            assertThat(p.primaryFrom(p.x)).isEqualTo(ApmPair.A2);
            p.stream(1000, WAIT);
            p.awaitEvent(p.y, PATH_MIG, WAIT);
            assertThat(p.sendError).isNull();
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
            assertThat(p.primaryFrom(p.y)).isEqualTo(ApmPair.B2);
        }
    }

    @Test
    void oldPrimaryIsRefusedAfterMigrationAndThePeerMigratesThroughItsRetries() {
        try (ApmPair p = armed(true)) {
            // x migrates alone while nothing is in flight; y, still ARMED, then sends on the old primary
            p.x.qp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
            RecvBatch rb = RecvBatch.allocate(p.h.arena, 1, 1);
            rb.wrId(0, 7).single(0, p.x.mr.address(), 64, p.x.mr.lkey());
            p.x.qp.postRecv(rb, 1);
            SendBatch sb = SendBatch.allocate(p.h.arena, 1, 1);
            sb.wrId(0, 9).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                    .single(0, p.y.mr.address(), 64, p.y.mr.lkey());
            p.y.qp.postSend(sb, 1);
            assertThat(Harness.pollAtLeast(p.y.scq, p.y.wc, 1, WAIT)).isEqualTo(1);
            assertThat(p.y.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(Harness.pollAtLeast(p.x.rcq, p.x.wc, 1, WAIT)).isEqualTo(1);
            assertThat(((SoftQueuePair) p.x.qp).paths().dropped()).as("old-path packets refused").isPositive();
            assertThat(p.count(p.y, PATH_MIG)).as("y's retries ran out on the old path").isEqualTo(1);
            assertThat(p.primaryFrom(p.y)).isEqualTo(ApmPair.B2);
        }
    }

    /**
     * Both ends have a SEND outstanding when the primary dies, y's posted a little after x's: x's retries run out
     * first and it migrates; its MigReq = 1 resend migrates y's responder — by then y's own retries, spent on the dead
     * path, may be all gone. y must then resend on the new primary with a fresh count, not fail with RETRY_EXC_ERR
     * (with credit updates flowing back, a cut stream hit this: ApmStreamTest).
     */
    @ParameterizedTest(name = "y posts {0} % of a timeout after x")
    @ValueSource(ints = {10, 30, 50, 70, 90})
    void aRequesterWhoseRetriesWereSpentWhenThePeerMigratedItResendsOnTheNewPath(int percent) throws Exception {
        try (ApmPair p = armed(true)) {
            RecvBatch rb = RecvBatch.allocate(p.h.arena, 1, 1);
            rb.wrId(0, 7).single(0, p.y.mr.address() + 4096, ApmPair.SIZE, p.y.mr.lkey());
            p.y.qp.postRecv(rb, 1);
            rb.wrId(0, 8).single(0, p.x.mr.address() + 4096, ApmPair.SIZE, p.x.mr.lkey());
            p.x.qp.postRecv(rb, 1);
            p.cut(ApmPair.A, ApmPair.B);
            SendBatch sb = SendBatch.allocate(p.h.arena, 1, 1);
            sb.wrId(0, 9).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                    .single(0, p.x.mr.address(), ApmPair.SIZE, p.x.mr.lkey());
            p.x.qp.postSend(sb, 1);
            // the local ACK timeout: 4.096 us x 2^16 at timer scale 0.1
            long timeoutNanos = (long) (4096L * (1L << 16) * 0.1);
            Thread.sleep(java.time.Duration.ofNanos(timeoutNanos * percent / 100));
            sb.wrId(0, 10).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                    .single(0, p.y.mr.address(), ApmPair.SIZE, p.y.mr.lkey());
            p.y.qp.postSend(sb, 1);
            assertThat(Harness.pollAtLeast(p.x.scq, p.x.wc, 1, WAIT)).isEqualTo(1);
            assertThat(p.x.wc.status(0)).as("x's SEND").isEqualTo(WcStatus.SUCCESS);
            assertThat(Harness.pollAtLeast(p.y.scq, p.y.wc, 1, WAIT)).isEqualTo(1);
            assertThat(p.y.wc.status(0)).as("y's SEND: %s", Harness.describe(p.y.qp)).isEqualTo(WcStatus.SUCCESS);
            assertThat(p.mig(p.x)).isEqualTo(MigState.MIGRATED);
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
        }
    }

    @Test
    void reArmThenCutMigratesBackAndForth() {
        try (ApmPair p = armed(true)) {
            String[][] paths = {{ApmPair.A, ApmPair.B}, {ApmPair.A2, ApmPair.B2}};
            for (int round = 0; round < 4; round++) {
                String[] primary = paths[round % 2];
                String[] alternate = paths[(round + 1) % 2];
                assertThat(p.mig(p.x)).as("round %d armed", round).isEqualTo(MigState.ARMED);
                assertThat(p.primaryFrom(p.x)).isEqualTo(primary[0]);
                p.stream(200, WAIT);
                p.cut(primary[0], primary[1]);
                p.stream(300, WAIT);
                assertThat(p.count(p.x, PATH_MIG)).isEqualTo(round + 1);
                p.awaitEvent(p.y, PATH_MIG, WAIT);
                assertThat(p.primaryFrom(p.x)).isEqualTo(alternate[0]);
                // the path comes back and is loaded as the next alternate
                p.heal(primary[0], primary[1]);
                p.rearmBoth(primary[0], primary[1]);
                p.armByTraffic();
            }
            assertThat(p.sendError).isNull();
            assertThat(p.count(p.y, PATH_MIG)).isEqualTo(4);
        }
    }

    /**
     * The alternate path is accepted like the primary: from its peer address and UDP port only. A MigReq = 1 ACK
     * from the alternate's peer address but another UDP port does not migrate an ARMED QP (dropped and counted);
     * the real peer's packets on the alternate still do.
     */
    @Test
    void onlyTheAlternatesPeerAddressAndPortCanMigrate() throws Exception {
        try (ApmPair p = armed(true)) {
            SoftQueuePair x = (SoftQueuePair) p.x.qp;
            long before = p.da.dropCounts().offPath();
            try (DatagramChannel intruder = DatagramChannel.open()) {
                intruder.bind(new InetSocketAddress(ApmPair.B2, 0));
                int srcPort = ((InetSocketAddress) intruder.getLocalAddress()).getPort();
                ByteBuffer bb = ByteBuffer.allocateDirect(256);
                int len = new PacketBuilder().begin(MemorySegment.ofBuffer(bb), 0, Opcode.RC_ACKNOWLEDGE)
                        .destQp(x.qpNum()).psn(p.params.psnA).migReq(true).aeth(Aeth.ack(Aeth.CREDITS_UNLIMITED), 0)
                        .finishIpv4(ApmPair.ip(ApmPair.B2), ApmPair.ip(ApmPair.A2), srcPort,
                                p.h.fabric.config().udpPort());
                bb.limit(len);
                intruder.send(bb, new InetSocketAddress(ApmPair.A2, p.h.fabric.config().udpPort()));
            }
            Awaitility.await().atMost(WAIT).until(() -> p.da.dropCounts().offPath() > before);
            assertThat(x.paths().dropped()).isPositive();
            assertThat(p.mig(p.x)).as("a forged MigReq = 1 migrates nothing").isEqualTo(MigState.ARMED);
            assertThat(p.count(p.x, PATH_MIG) + p.count(p.x, PATH_MIG_ERR)).isZero();
            p.y.qp.modify(new QpAttr().pathMigState(MigState.MIGRATED)); // the real peer, on the alternate
            p.stream(50, WAIT);
            p.awaitEvent(p.x, PATH_MIG, WAIT);
            assertThat(p.primaryFrom(p.x)).isEqualTo(ApmPair.A2);
        }
    }
}
