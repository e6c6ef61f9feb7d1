package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.RdmaCounter;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The provider counters that reach metrics ({@code SoftFabric.counters()}): a known exchange gives known counts on
 * each device, and closing the QPs keeps them (a counter never decreases).
 */
class CountersTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    private static long read(Harness h, String name, String device) {
        return h.fabric.counters().stream().filter(c -> c.name().equals(name) && c.tags().equals(Map.of("device",
                device))).mapToLong(RdmaCounter::read).sum();
    }

    @Test
    void rnrNaksBothWaysAndRetransmissionsAreCountedPerDeviceAndOutliveTheirQp() {
        Harness.Side x = h.side(h.a, 1 << 16, new QpCap(16, 16, 2, 2, 0), true, null, null);
        Harness.Side y = h.side(h.b, 1 << 16, new QpCap(16, 16, 2, 2, 0), true, null, null);
        Harness.Params p = new Harness.Params();
        p.minRnrTimer = 1;
        p.rnrRetry = 2; // the first RNR NAK and two retries, then RNR_RETRY_EXC_ERR
        Harness.connect(x, y, p);
        SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1); // y posted no receive

        CompletionBatch wc = x.wc;
        assertThat(Harness.pollAtLeast(x.scq, wc, 1, WAIT)).isEqualTo(1);
        assertThat(wc.status(0)).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
        SoftDevice requester = (SoftDevice) h.a;
        SoftDevice responder = (SoftDevice) h.b;
        assertThat(requester.count(QpCounter.RNR_NAKS_RECEIVED)).isEqualTo(3);
        assertThat(requester.count(QpCounter.RETRANSMISSIONS)).isEqualTo(2);
        assertThat(responder.count(QpCounter.RNR_NAKS_SENT)).isEqualTo(3);
        assertThat(responder.count(QpCounter.RNR_NAKS_RECEIVED)).isZero();
        assertThat(read(h, "rnr.naks.received", requester.name())).isEqualTo(3);
        assertThat(read(h, "rnr.naks.sent", responder.name())).isEqualTo(3);
        assertThat(read(h, "drops.off.path", requester.name())).isZero();

        x.qp.close();
        y.qp.close();
        assertThat(requester.count(QpCounter.RNR_NAKS_RECEIVED)).as("kept after the QP closed").isEqualTo(3);
        assertThat(read(h, "retransmissions", requester.name())).isEqualTo(2);
        assertThat(read(h, "rnr.naks.sent", responder.name())).isEqualTo(3);
    }

    /**
     * Regression: the QP table publishes a QP (its number) before its constructor has built the sender and responder;
     * a metrics thread summing the counters meanwhile threw a NullPointerException (seen under a wave of 150 connects).
     */
    @Test
    void countersReadWhileQpsAreCreatedAndClosedNeverThrow() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        SoftDevice device = (SoftDevice) h.a;
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                while (!done.get()) {
                    for (QpCounter c : QpCounter.values()) {
                        device.count(c);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        try {
            Harness.Side x = h.side(h.a, 4096, new QpCap(4, 4, 1, 1, 0), true, null, null);
            QpInitAttr attr = new QpInitAttr(x.scq, x.rcq, null, new QpCap(4, 4, 1, 1, 0), QpType.RC, true, null);
            for (int i = 0; i < 5_000 && failure.get() == null; i++) {
                x.pd.createQueuePair(attr).close();
            }
        } finally {
            done.set(true);
            reader.join(WAIT.toMillis());
        }
        assertThat(failure.get()).isNull();
    }

    @Test
    void everyCounterIsNamedAndTaggedByDeviceOnly() {
        assertThat(h.fabric.counters()).hasSize(2 * (QpCounter.values().length + 4))
                .allSatisfy(c -> assertThat(c.tags()).containsOnlyKeys("device"))
                .allSatisfy(c -> assertThat(c.read()).isZero());
    }
}
