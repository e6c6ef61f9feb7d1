package dev.ibex.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.reactive.ReactiveBlockHound;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A connection that closes on a loop cancels RSocket's keepalive interval there: Reactor's periodic task is removed
 * from its {@code ScheduledThreadPoolExecutor} queue under the queue's lock, which the scheduler's other users take
 * too. In a CI run that lock was contended once, the loop parked for it, BlockHound failed the close, and the TCK's
 * pair never terminated (RdmaFragmentationTckTest, 2026-11-27). The same bounded wait Reactor allows for the queue's
 * offer and take is allowed for its remove ({@link NettyAllocatorBlockHound}); this test contends the lock while a
 * non-blocking thread cancels intervals.
 */
class SchedulerCancelBlockHoundTest {

    @Test
    @Timeout(60)
    void cancellingAnIntervalOnANonBlockingThreadWhileItsQueueIsContendedIsAllowed() throws Exception {
        ReactiveBlockHound.install();
        Scheduler shared = Schedulers.newParallel("contended", 1); // one executor: one queue, one lock
        Scheduler nonBlocking = Schedulers.newParallel("canceller", 1); // Reactor's NonBlocking threads
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        Thread[] hammers = new Thread[2];
        try {
            for (int i = 0; i < hammers.length; i++) {
                hammers[i] = Thread.ofPlatform().daemon().start(() -> {
                    while (!stop.get()) {
                        shared.schedule(() -> { }, 1, TimeUnit.HOURS).dispose(); // offer and remove, under the lock
                    }
                });
            }
            CountDownLatch done = new CountDownLatch(1);
            nonBlocking.schedule(() -> {
                try {
                    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                    while (System.nanoTime() < end) {
                        Disposable keepalive = Flux.interval(Duration.ofHours(1), shared).subscribe();
                        keepalive.dispose();
                    }
                } catch (Throwable t) {
                    errors.add(t);
                } finally {
                    done.countDown();
                }
            });
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            stop.set(true);
            for (Thread t : hammers) {
                if (t != null) {
                    t.join(5_000);
                }
            }
            shared.dispose();
            nonBlocking.dispose();
        }
        assertThat(errors).isEmpty();
    }
}
