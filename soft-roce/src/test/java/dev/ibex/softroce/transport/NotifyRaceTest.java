package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Poller;
import dev.ibex.softroce.Harness;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The arm-then-poll handshake between a CQ's producer (write CQE, then read the arm state) and its consumer (arm,
 * then re-check the ring, then sleep on the channel) never loses a wake-up. Each round starts from a disarmed CQ
 * and an empty channel; then this thread arms while another thread writes one completion, both after delays that
 * vary from round to round. If the consumer's re-check misses the completion, the producer must have seen the arm
 * and queued an event; a lost wake-up shows as a round whose bounded wait on the poller ends with nothing. (Checked
 * to fail when the producer reads the arm state before publishing the CQE, as a StoreLoad reordering would.)
 */
class NotifyRaceTest {
    private static final int ROUNDS = 20_000;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    @Test
    void armThenPollNeverLosesAWakeUp() throws Exception {
        try (Harness h = new Harness()) {
            Poller poller = h.fabric.createPoller();
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            SoftCompletionQueue soft = (SoftCompletionQueue) cq;
            CompletionBatch wc = CompletionBatch.allocate(h.arena, 4);
            poller.register(ch, ch);
            AtomicInteger go = new AtomicInteger(-1);
            AtomicInteger written = new AtomicInteger(-1);
            AtomicReference<Throwable> producerFailure = new AtomicReference<>();
            Thread producer = Thread.ofPlatform().name("notify-race-producer").start(() -> {
                try {
                    for (int round = 0; round < ROUNDS; round++) {
                        long deadline = System.nanoTime() + WAIT_NANOS;
                        while (go.get() != round) {
                            if (System.nanoTime() > deadline) {
                                throw new AssertionError("consumer never started round " + round);
                            }
                            Thread.onSpinWait();
                        }
                        for (int spin = round % 64; spin > 0; spin--) {
                            Thread.onSpinWait(); // vary where the write lands relative to the arm
                        }
                        soft.complete(round, 0, 0, 0, 0, 0, 0, 0, false);
                        written.set(round);
                    }
                } catch (Throwable t) {
                    producerFailure.set(t);
                }
            });
            int lateWakeUps = 0;
            for (int round = 0; round < ROUNDS; round++) {
                // the consumer may take the last round's completion while the producer is still between consuming
                // the arm and notifying the channel: reset only once that notification is out
                long deadline = System.nanoTime() + WAIT_NANOS;
                while (written.get() != round - 1 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                reset(soft, ch, poller, wc);
                go.set(round);
                for (int spin = (round >> 6) % 64; spin > 0; spin--) {
                    Thread.onSpinWait(); // with the producer's own delay, sweeps arm-before-write to write-before-arm
                }
                boolean got = false;
                while (!got) {
                    cq.requestNotify(false);
                    if (cq.poll(wc) > 0) {
                        got = true;
                        break;
                    }
                    int ready = poller.poll(WAIT_NANOS, x -> { });
                    assertThat(ready).as("round %d: a completion was written but no wake-up came within 5 s", round)
                            .isPositive();
                    lateWakeUps++;
                    drainEvents(ch, cq);
                    got = cq.poll(wc) > 0;
                }
                assertThat(wc.wrId(0)).isEqualTo(round);
            }
            producer.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(producerFailure.get()).isNull();
            assertThat(lateWakeUps).as("rounds where the consumer slept and the event woke it").isPositive();
            drainEvents(ch, cq);
            poller.deregister(ch);
            cq.close();
            ch.close();
            poller.close();
        }
    }

    /** Leaves the CQ disarmed, empty, and the channel without events: a completion of our own consumes the arm. */
    private static void reset(SoftCompletionQueue cq, CompletionChannel ch, Poller poller, CompletionBatch wc) {
        cq.requestNotify(false);
        cq.complete(-1, 0, 0, 0, 0, 0, 0, 0, false);
        assertThat(poller.poll(0, x -> { })).isEqualTo(1);
        drainEvents(ch, cq);
        while (cq.poll(wc) > 0) {
            assertThat(wc.wrId(0)).isEqualTo(-1);
        }
    }

    private static void drainEvents(CompletionChannel ch, CompletionQueue cq) {
        int events = 0;
        while (ch.poll() != null) {
            events++;
        }
        if (events > 0) {
            cq.ackEvents(events);
        }
    }
}
