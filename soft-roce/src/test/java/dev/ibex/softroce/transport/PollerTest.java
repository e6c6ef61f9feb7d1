package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
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
}
