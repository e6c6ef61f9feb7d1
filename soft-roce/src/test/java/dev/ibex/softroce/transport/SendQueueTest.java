package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

/** The send queue's ring holds what the QP had outstanding, not its whole capacity. */
class SendQueueTest {
    private static void post(SendQueue sq, long wrId) {
        SendWqe w = sq.claim();
        assertThat(w).isNotNull();
        w.wrId = wrId;
        sq.publish();
    }

    @Test
    void anIdleQueueHoldsAFewSlotsAndAQueueWithFewOutstandingNeverGrows() {
        SendQueue sq = new SendQueue(256, 1, 64, Arena.ofAuto());
        assertThat(sq.slots()).isEqualTo(SendQueue.INITIAL);
        for (long i = 0; i < 10_000; i++) {
            post(sq, i);
            if (i >= 2) { // at most three outstanding
                assertThat(sq.at(sq.consumerIndex()).wrId).isEqualTo(i - 2);
                sq.advanceConsumer();
            }
        }
        assertThat(sq.slots()).isEqualTo(SendQueue.INITIAL);
    }

    @Test
    void growingKeepsEveryOutstandingWqeAtItsPositionAndStopsAtTheCapacity() {
        SendQueue sq = new SendQueue(100, 1, 0, Arena.ofAuto());
        for (int i = 0; i < 5; i++) { // the consumer is not at zero when the ring grows
            post(sq, -1);
            sq.advanceConsumer();
        }
        long first = sq.producerIndex();
        for (int i = 0; i < 100; i++) {
            post(sq, first + i);
        }
        assertThat(sq.claim()).as("full at the capacity").isNull();
        assertThat(sq.slots()).isEqualTo(128);
        for (long pos = first; pos < first + 100; pos++) {
            assertThat(sq.at(pos).wrId).isEqualTo(pos);
        }
        for (int i = 0; i < 100; i++) {
            assertThat(sq.at(sq.consumerIndex()).wrId).isEqualTo(first + i);
            sq.advanceConsumer();
        }
        assertThat(sq.size()).isZero();
    }

    @Test
    void aWqeMadeWhileTheQueueGrowsIsTheOneTheConsumerReads() throws Exception {
        SendQueue sq = new SendQueue(1024, 1, 16, Arena.ofAuto());
        int n = 200_000;
        Thread consumer = Thread.ofPlatform().start(() -> {
            for (long expect = 0; expect < n; ) {
                if (sq.consumerIndex() != sq.producerIndex()) {
                    assertThat(sq.at(sq.consumerIndex()).wrId).isEqualTo(expect);
                    sq.advanceConsumer();
                    expect++;
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        for (long i = 0; i < n; ) {
            SendWqe w = sq.claim();
            if (w == null) {
                Thread.onSpinWait();
                continue;
            }
            w.wrId = i++;
            sq.publish();
        }
        consumer.join(30_000);
        assertThat(consumer.isAlive()).isFalse();
        assertThat(sq.size()).isZero();
    }
}
