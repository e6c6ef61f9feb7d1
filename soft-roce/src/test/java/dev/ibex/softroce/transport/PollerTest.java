package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.IdleSpin;
import dev.ibex.cm.spi.Poller;
import dev.ibex.softroce.Harness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PollerTest {
    @Test
    void timesOutWhenNothingIsReadyAndWakesUpFromAnotherThread() throws Exception {
        try (Harness h = new Harness()) {
            Poller p = h.fabric.createPoller();
            long t0 = System.nanoTime();
            assertThat(p.poll(20_000_000, x -> { })).isZero();
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(15_000_000);
            CountDownLatch started = new CountDownLatch(1);
            Thread waker = new Thread(() -> {
                try {
                    started.await();
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
                p.wakeup();
            });
            waker.start();
            started.countDown();
            assertThat(p.poll(-1, x -> { })).isZero(); // returns thanks to the wake-up, not a timeout
            waker.join(5000);
            p.wakeup();
            assertThat(p.poll(-1, x -> { })).as("a wake-up before poll makes it return at once").isZero();
            p.close();
        }
    }

    @Test
    void levelTriggeredOverSources() {
        try (Harness h = new Harness()) {
            Poller p = h.fabric.createPoller();
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            p.register(ch, "channel");
            p.register(h.a.asyncEvents(), "async");
            List<Object> ready = new ArrayList<>();
            assertThat(p.poll(0, ready::add)).isZero();
            cq.requestNotify(false);
            ((SoftCompletionQueue) cq).complete(1, 0, 0, 0, 0, 0, 0, 0, false);
            assertThat(p.poll(1_000_000_000L, ready::add)).isEqualTo(1);
            assertThat(ready).containsExactly("channel");
            ready.clear();
            assertThat(p.poll(0, ready::add)).as("still ready until drained").isEqualTo(1);
            assertThat(ch.poll()).isSameAs(cq);
            assertThat(ch.poll()).isNull();
            assertThat(p.poll(0, ready::add)).isZero();
            cq.ackEvents(1);
            p.deregister(ch);
            p.deregister(h.a.asyncEvents());
            cq.close();
            ch.close();
            p.close();
        }
    }

    @Test
    void producerOnAnotherThreadUnparksThePoller() throws Exception {
        try (Harness h = new Harness()) {
            Poller p = h.fabric.createPoller();
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            p.register(ch, ch);
            cq.requestNotify(false);
            Thread producer = new Thread(() -> {
                try {
                    Thread.sleep(30);
                } catch (InterruptedException e) {
                    return;
                }
                ((SoftCompletionQueue) cq).complete(1, 0, 0, 0, 0, 0, 0, 0, false);
            });
            producer.start();
            int n = p.poll(TimeUnit.SECONDS.toNanos(5), x -> { });
            assertThat(n).isEqualTo(1);
            producer.join(5000);
            assertThat(ch.poll()).isSameAs(cq);
            cq.ackEvents(1);
            p.close();
        }
    }

    /**
     * The fabric's pollers adapt their spin (soft-roce's default idle policy): a wait that a producer ended soon after
     * the poll blocked opens the window, a wait that timed out closes it, and with the window open a producer's
     * completion is caught while the poll spins.
     */
    @Test
    void anAdaptiveSpinOpensOnShortWaitsClosesOnTimeoutsAndCatchesWorkWhileOpen() throws Exception {
        try (Harness h = new Harness()) {
            IdleSpin spin = IdleSpin.adaptive(TimeUnit.SECONDS.toNanos(1));
            SoftPoller p = new SoftPoller(new dev.ibex.cm.spi.ResourceTracker(), spin, 0, null);
            CompletionChannel ch = h.a.createCompletionChannel();
            CompletionQueue cq = h.a.createCompletionQueue(16, ch, 0);
            p.register(ch, ch);
            for (int i = 1; i <= 2; i++) {
                cq.requestNotify(false);
                Thread producer = completeLater((SoftCompletionQueue) cq, 20);
                assertThat(p.poll(TimeUnit.SECONDS.toNanos(5), x -> { })).isEqualTo(1);
                producer.join(5000);
                assertThat(ch.poll()).isSameAs(cq);
                cq.ackEvents(1);
                assertThat(spin.window()).as("after short wait " + i).isEqualTo(IdleSpin.GROW_START_NANOS << (i - 1));
            }
            assertThat(p.poll(TimeUnit.MILLISECONDS.toNanos(10), x -> { })).isZero();
            assertThat(spin.window()).as("a timeout halves it").isEqualTo(IdleSpin.GROW_START_NANOS);
            IdleSpin open = IdleSpin.fixed(TimeUnit.SECONDS.toNanos(2));
            SoftPoller spinning = new SoftPoller(new dev.ibex.cm.spi.ResourceTracker(), open, 0, null);
            p.deregister(ch);
            spinning.register(ch, ch);
            cq.requestNotify(false);
            Thread producer = completeLater((SoftCompletionQueue) cq, 20);
            long t0 = System.nanoTime();
            assertThat(spinning.poll(TimeUnit.SECONDS.toNanos(5), x -> { })).isEqualTo(1);
            assertThat(System.nanoTime() - t0).as("caught while spinning, not at the spin's end")
                    .isLessThan(TimeUnit.SECONDS.toNanos(1));
            producer.join(5000);
            assertThat(ch.poll()).isSameAs(cq);
            cq.ackEvents(1);
            spinning.deregister(ch);
            cq.close();
            ch.close();
            p.close();
            spinning.close();
        }
    }

    private static Thread completeLater(SoftCompletionQueue cq, long millis) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            cq.complete(1, 0, 0, 0, 0, 0, 0, 0, false);
        });
        t.start();
        return t;
    }
}
