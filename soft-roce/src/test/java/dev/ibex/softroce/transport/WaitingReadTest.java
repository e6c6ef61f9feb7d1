package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.IdleSpin;
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
        /** When positive: each wait sleeps this long before its datagram completes, and says it came 1 ms in. */
        volatile long sleepNanos;
        /** False: {@link #wakeLagNanos} says the wait slept but not how late it woke (0). */
        volatile boolean lagKnown = true;
        /** How late the last sleep's thread "woke" for its datagram: all but its first ms (-1: no sleep yet). */
        private long lag = -1;
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
            if (sleepNanos > 0) {
                long t0 = System.nanoTime();
                do {
                    java.util.concurrent.locks.LockSupport.parkNanos(sleepNanos);
                } while (System.nanoTime() - t0 < sleepNanos);
                lag = System.nanoTime() - t0 - TimeUnit.MILLISECONDS.toNanos(1);
            }
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
        public long wakeLagNanos() {
            return lagKnown || lag < 0 ? lag : 0;
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

    /**
     * An adaptive spin is told when the work came, not when the thread woke for it: a sleep of 100 ms whose datagram
     * came 1 ms in (the reception's {@link InlineReception#wakeLagNanos}, 99 ms of slow wake-up) opens a window of up to
     * 50 ms, which a spin would have caught it in; told nothing, the same sleep keeps the window shut.
     */
    @Test
    void aSlowWakeUpDoesNotKeepAnAdaptiveSpinShut() {
        try (Harness h = new Harness()) {
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            ReadingWait told = new ReadingWait((SoftCompletionQueue) cq);
            assertThat(windowAfterOneSleep(ch, cq, told)).as("the work came 1 ms into the sleep")
                    .isEqualTo(IdleSpin.GROW_START_NANOS);
            ReadingWait untold = new ReadingWait((SoftCompletionQueue) cq);
            untold.lagKnown = false; // slept, lag not known: the whole sleep counts
            assertThat(windowAfterOneSleep(ch, cq, untold))
                    .as("a 100 ms sleep, no lag known: longer than the 50 ms maximum").isZero();
            cq.close();
            ch.close();
        }
    }

    /** One poll through a 100 ms sleep of {@code reception}; returns the window of its adaptive spin (at most 50 ms). */
    private static long windowAfterOneSleep(CompletionChannel ch, CompletionQueue cq, ReadingWait reception) {
        reception.sleepNanos = TimeUnit.MILLISECONDS.toNanos(100);
        IdleSpin spin = IdleSpin.adaptive(TimeUnit.MILLISECONDS.toNanos(50));
        SoftPoller p = new SoftPoller(new ResourceTracker(), spin, 0, reception);
        p.register(ch, "channel");
        cq.requestNotify(false);
        assertThat(p.poll(TimeUnit.SECONDS.toNanos(5), x -> { })).isEqualTo(1);
        assertThat(ch.poll()).isSameAs(cq);
        cq.ackEvents(1);
        p.deregister(ch);
        p.close();
        return spin.window();
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
