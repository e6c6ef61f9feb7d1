package dev.ibex.softroce.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CmTimerQueueTest {
    /** The fabric's scheduler, counting the tasks it starts (ticks and zero-delay work). */
    private final AtomicInteger started = new AtomicInteger();
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1) {
        @Override
        protected void beforeExecute(Thread t, Runnable r) {
            started.incrementAndGet();
        }
    };
    private final CmTimerQueue timers;

    CmTimerQueueTest() {
        executor.setRemoveOnCancelPolicy(true);
        timers = new CmTimerQueue(executor, millis -> millis * 1_000_000L);
    }

    @AfterEach
    void shutdown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void timersFireInDeadlineOrderNeverEarly() {
        List<String> fired = new CopyOnWriteArrayList<>();
        long t0 = System.nanoTime();
        long[] at = new long[3];
        timers.schedule(60, () -> { at[2] = System.nanoTime(); fired.add("60"); });
        timers.schedule(20, () -> { at[0] = System.nanoTime(); fired.add("20"); });
        timers.schedule(40, () -> { at[1] = System.nanoTime(); fired.add("40"); });
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 3);
        assertThat(fired).containsExactly("20", "40", "60");
        assertThat(at[0] - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(at[1] - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
        assertThat(at[2] - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(60));
        assertThat(timers.pending()).isZero();
    }

    @Test
    void armingAfterThePendingTickHandsTheSchedulerNothing() {
        timers.schedule(10_000, () -> { });
        assertThat(executor.getQueue()).hasSize(1);
        for (int i = 0; i < 1000; i++) {
            timers.schedule(20_000 + i, () -> { }); // a REQ's retry timer while a timewait is pending
        }
        assertThat(executor.getQueue()).as("one tick for all of them").hasSize(1);
        assertThat(timers.pending()).isEqualTo(1001);
        assertThat(started.get()).as("the scheduler's thread ran nothing").isZero();
    }

    @Test
    void anEarlierTimerReplacesThePendingTick() {
        timers.schedule(10_000, () -> { });
        CountDownLatch early = new CountDownLatch(1);
        timers.schedule(20, early::countDown);
        assertThat(executor.getQueue()).as("the later tick left the queue").hasSize(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> early.getCount() == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> executor.getQueue().size() == 1); // the 10 s one's
        assertThat(timers.pending()).isEqualTo(1);
    }

    @Test
    void expiriesWithinOneGranuleShareATick() throws InterruptedException {
        AtomicInteger fired = new AtomicInteger();
        timers.schedule(30, fired::incrementAndGet);
        Thread.sleep(0, 300_000);
        for (int i = 0; i < 20; i++) {
            timers.schedule(30, fired::incrementAndGet); // armed within ~0.3 ms: due within one granule
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 21);
        assertThat(started.get()).as("ticks for 21 expiries").isLessThanOrEqualTo(3);
    }

    @Test
    void aCancelledTimerNeverRunsAndItsTickServesTheNextOnes() {
        AtomicInteger fired = new AtomicInteger();
        CmTimer.Cancellable a = timers.schedule(30, fired::incrementAndGet);
        CmTimer.Cancellable b = timers.schedule(40, fired::incrementAndGet);
        a.cancel();
        assertThat(timers.pending()).isEqualTo(1);
        b.cancel();
        b.cancel(); // idempotent
        assertThat(timers.pending()).isZero();
        assertThat(executor.getQueue()).as("the tick stays for the timers to come").hasSize(1);
        timers.schedule(50, fired::incrementAndGet); // the next request's timer: due after the tick, no new tick
        assertThat(executor.getQueue()).hasSize(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 1);
        assertThat(started.get()).as("the tick at 30 ms and the one at 50 ms").isLessThanOrEqualTo(2);
        assertThat(timers.slots()).isZero();
    }

    @Test
    void cancelledSlotsArePurgedWhenTheyOutnumberTheLive() {
        CmTimer.Cancellable[] many = new CmTimer.Cancellable[1000];
        timers.schedule(60_000, () -> { });
        for (int i = 0; i < many.length; i++) {
            many[i] = timers.schedule(30_000, () -> { });
        }
        for (CmTimer.Cancellable c : many) {
            c.cancel(); // answered requests
        }
        assertThat(timers.pending()).isEqualTo(1);
        assertThat(timers.slots()).as("cancelled slots kept").isLessThanOrEqualTo(256 + 1);
        assertThat(executor.getQueue()).hasSize(1);
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheOthers() {
        AtomicInteger fired = new AtomicInteger();
        timers.schedule(20, () -> {
            throw new IllegalStateException("expected by the test");
        });
        timers.schedule(20, fired::incrementAndGet);
        timers.schedule(50, fired::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> fired.get() == 2);
    }

    @Test
    void zeroDelayRunsOnTheSchedulersThreadAtOnce() {
        CountDownLatch ran = new CountDownLatch(1);
        Thread[] on = new Thread[1];
        timers.schedule(0, () -> {
            on[0] = Thread.currentThread();
            ran.countDown();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.getCount() == 0);
        assertThat(on[0]).isNotSameAs(Thread.currentThread());
    }

    @Test
    void aClosedSchedulerArmsNothingAndThrowsNothing() {
        executor.shutdownNow();
        CmTimer.Cancellable c = timers.schedule(10, () -> { });
        c.cancel();
        timers.schedule(0, () -> { }).cancel();
        assertThat(timers.pending()).isZero();
    }
}
