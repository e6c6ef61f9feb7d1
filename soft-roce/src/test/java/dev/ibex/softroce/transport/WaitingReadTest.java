package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.softroce.Harness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A {@link SoftPoller} whose reception sleeps in its read ({@link InlineReception#readsWhileWaiting}): what the read
 * processes happens on the poller's own thread while it counts as waiting, and must not wake it again.
 */
class WaitingReadTest {

    /** A reception whose wait "reads" a datagram that completes into {@code cq}, as a SEND's arrival would. */
    private static final class ReadingWait implements InlineReception {
        final AtomicInteger wakes = new AtomicInteger();
        final AtomicInteger receiveNowCalls = new AtomicInteger();
        final SoftCompletionQueue cq;
        volatile boolean completeInWait = true;
        /** Set while a wait that reads nothing blocks (parked: a producer must wake it). */
        volatile boolean waiting;
        private final java.util.concurrent.Semaphore woken = new java.util.concurrent.Semaphore(0);

        ReadingWait(SoftCompletionQueue cq) {
            this.cq = cq;
        }

        @Override
        public int receiveNow(BooleanSupplier handOff) {
            receiveNowCalls.incrementAndGet();
            return 0;
        }

        @Override
        public int await(long timeoutNanos) {
            if (completeInWait) {
                cq.complete(1, 0, 0, 0, 0, 0, 0, 0, false);
                return 1;
            }
            waiting = true;
            try {
                woken.tryAcquire(timeoutNanos < 0 ? 5_000_000_000L : timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiting = false;
            }
            return 0;
        }

        @Override
        public boolean readsWhileWaiting() {
            return true;
        }

        @Override
        public void wake() {
            wakes.incrementAndGet();
            woken.release();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void whatItsOwnWaitReadMakesReadyIsHandledWithoutWakingItself() {
        try (Harness h = new Harness()) {
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            ReadingWait reception = new ReadingWait((SoftCompletionQueue) cq);
            SoftPoller p = new SoftPoller(new ResourceTracker(), 0, reception);
            p.register(ch, "channel");
            cq.requestNotify(false);
            List<Object> ready = new ArrayList<>();
            assertThat(p.poll(1_000_000_000L, ready::add)).isEqualTo(1);
            assertThat(ready).containsExactly("channel");
            assertThat(reception.wakes).as("no wake-up datagram to itself for its own completion").hasValue(0);
            assertThat(reception.receiveNowCalls)
                    .as("a poll that may wait reads in the wait alone, with no read before or after it").hasValue(0);
            assertThat(ch.poll()).isSameAs(cq);
            cq.ackEvents(1);
            p.deregister(ch);
            p.close();
            cq.close();
            ch.close();
        }
    }

    @Test
    void aPollThatMustNotWaitStillReads() {
        try (Harness h = new Harness()) {
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            ReadingWait reception = new ReadingWait((SoftCompletionQueue) cq);
            SoftPoller p = new SoftPoller(new ResourceTracker(), 0, reception);
            assertThat(p.poll(0, x -> { })).isZero();
            assertThat(reception.receiveNowCalls).as("a loop with other work reads without waiting").hasValue(1);
            p.close();
            cq.close();
            ch.close();
        }
    }

    @Test
    void aProducerOnAnotherThreadWakesTheWaitingRead() throws Exception {
        try (Harness h = new Harness()) {
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            ReadingWait reception = new ReadingWait((SoftCompletionQueue) cq);
            reception.completeInWait = false;
            SoftPoller p = new SoftPoller(new ResourceTracker(), 0, reception);
            p.register(ch, "channel");
            cq.requestNotify(false);
            Thread producer = new Thread(() -> {
                long end = System.nanoTime() + 5_000_000_000L;
                while (!reception.waiting && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                ((SoftCompletionQueue) cq).complete(1, 0, 0, 0, 0, 0, 0, 0, false);
            });
            producer.start();
            assertThat(p.poll(5_000_000_000L, x -> { })).isEqualTo(1);
            producer.join(5000);
            assertThat(reception.wakes).as("another thread's completion wakes the waiting read").hasValue(1);
            p.deregister(ch);
            p.close();
            cq.close();
            ch.close();
        }
    }
}
