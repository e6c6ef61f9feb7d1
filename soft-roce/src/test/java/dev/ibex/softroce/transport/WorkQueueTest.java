package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The work queue's hand-over: nothing lost under many producers, the worker woken, a full queue run inline. */
class WorkQueueTest {

    /**
     * Each producer bumps its tasks' "wanted" counters and defers them, over and over; a body records the last
     * wanted value it saw. A task is queued at most once and may run more often than deferred, never less: so each
     * body must end up having seen its final wanted value, on the worker thread.
     */
    @Test
    void manyProducersDeferringOverAndOverLoseNoRun() throws Exception {
        int producers = 4;
        int tasksEach = 64;
        int rounds = 2_000;
        try (WorkQueue wq = new WorkQueue("wq-test", 32)) { // fewer slots than tasks: some run inline
            List<Thread> threads = new ArrayList<>();
            List<Counted> all = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                List<Counted> mine = new ArrayList<>();
                for (int i = 0; i < tasksEach; i++) {
                    mine.add(new Counted());
                }
                all.addAll(mine);
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int r = 0; r < rounds; r++) {
                        for (Counted c : mine) {
                            c.wanted.incrementAndGet();
                            wq.defer(c.task);
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(60_000);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (Counted c : all) {
                while (c.seen.get() != rounds && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(c.seen.get()).as("the last deferral of a task ran").isEqualTo(rounds);
            }
        }
    }

    @Test
    void aFullQueueRunsTheTaskOnTheCallerAndAnIdleWorkerIsWoken() throws Exception {
        try (WorkQueue wq = new WorkQueue("wq-full", 2)) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            SerialTask holder = new SerialTask("holder", () -> {
                holding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Thread.sleep(50); // let the worker go to sleep first: the first defer must wake it
            wq.defer(holder);
            assertThat(holding.await(10, TimeUnit.SECONDS)).as("the parked worker was woken").isTrue();
            List<String> ranOn = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<SerialTask> more = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                more.add(new SerialTask("t" + i, () -> ranOn.add(wq.isWorker() ? "worker" : "caller")));
            }
            for (SerialTask t : more) {
                wq.defer(t); // two fit, the third runs here
            }
            assertThat(ranOn).containsExactly("caller");
            release.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ranOn.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(ranOn).containsExactly("caller", "worker", "worker");
        }
    }

    /** A task whose body records, on the worker or inline, the latest wanted value. */
    private static final class Counted {
        final AtomicLong wanted = new AtomicLong();
        final AtomicInteger seen = new AtomicInteger();
        final SerialTask task;

        Counted() {
            task = new SerialTask("counted", () -> seen.set((int) wanted.get()));
        }
    }
}
