package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.MigState;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The primary path dies at a random point of a 100,000-message RC stream that also suffers 1 % loss and 1 %
 * reordering (seeded): every message arrives exactly once and in order, both ends raise PATH_MIG and end
 * MIGRATED. Timer scale 1, timeout 14 (67 ms) and seven retries, so a loss-recovery stall of a loaded machine
 * cannot pass for a dead path; should one migrate anyway, the test re-arms before it cuts (ARMED is asserted at
 * the cut).
 */
class ApmLossyStreamTest {
    private static final int MESSAGES = 100_000;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void primaryCutAtARandomPointOfALossyStream(long seed) {
        Harness.Params params = new Harness.Params();
        params.timeout = 14;
        params.retryCnt = 7;
        Map<String, String> extra = Map.of(SoftRoceConfig.TIMER_SCALE, "1", "ibex.softroce.fault.seed",
                Long.toString(seed));
        try (ApmPair p = new ApmPair(true, params, extra)) {
            p.rearmBoth(ApmPair.A2, ApmPair.B2);
            p.armByTraffic();
            p.h.fabric.faults().onSend().drop(0.01).reorder(0.01, Duration.ofMillis(1));
            long cutAt = 20_000 + new Random(seed).nextInt(60_000);
            p.runUntil(() -> p.sent >= cutAt, cutAt, Duration.ofSeconds(90), "the cut point");
            long spurious = p.count(p.x, AsyncEventType.PATH_MIG);
            if (p.mig(p.x) != MigState.ARMED || p.mig(p.y) != MigState.ARMED) {
                // a stall passed for a dead path: load the other path again and re-arm before the cut
                String x2 = p.primaryFrom(p.x).equals(ApmPair.A) ? ApmPair.A2 : ApmPair.A;
                String y2 = x2.equals(ApmPair.A) ? ApmPair.B : ApmPair.B2;
                p.rearmBoth(x2, y2);
                p.armByTraffic();
            }
            assertThat(p.mig(p.x)).isEqualTo(MigState.ARMED);
            assertThat(p.mig(p.y)).isEqualTo(MigState.ARMED);
            String from = p.primaryFrom(p.x);
            String to = from.equals(ApmPair.A) ? ApmPair.B : ApmPair.B2;
            long beforeY = p.count(p.y, AsyncEventType.PATH_MIG);
            p.cut(from, to);
            p.runUntil(() -> p.received >= MESSAGES && p.sendsCompleted >= MESSAGES, MESSAGES,
                    Duration.ofSeconds(120), MESSAGES + " messages");
            assertThat(p.sendError).isNull();
            assertThat(p.received).isEqualTo(MESSAGES);
            assertThat(p.count(p.x, AsyncEventType.PATH_MIG)).isEqualTo(spurious + 1);
            assertThat(p.count(p.y, AsyncEventType.PATH_MIG)).isGreaterThan(beforeY);
            assertThat(p.mig(p.x)).isEqualTo(MigState.MIGRATED);
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
            assertThat(p.primaryFrom(p.x)).isNotEqualTo(from);
            assertThat(p.h.fabric.faults().counts().dropped()).isGreaterThan(MESSAGES / 200);
            System.out.printf("APM-LOSSY seed=%d cutAt=%d spuriousMigrations=%d retries=%d %s%n", seed, cutAt,
                    spurious, ((dev.ibex.softroce.transport.SoftQueuePair) p.x.qp).retries(), p.h.fabric.faults());
        }
    }
}
