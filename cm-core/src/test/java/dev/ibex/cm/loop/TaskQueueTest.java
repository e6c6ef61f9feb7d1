package dev.ibex.cm.loop;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.LoopBlockHound;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The loop's bounded task queue: what {@code execute} does when it is full, and that it allocates nothing. */
class TaskQueueTest {
    private static final int CAPACITY = 8;

    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private FakeFabric fabric;
    private EventLoopGroup group;

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install(); // a loop thread that waited for room would fail its task
    }

    private EventLoopGroup group(int loops, int capacity) {
        fabric = FakeFabric.scripted();
        group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(loops).withTaskQueueCapacity(capacity)
                .withCloseTimeout(Duration.ofSeconds(2)).withUncaughtHandler(uncaught::add));
        return group;
    }

    @AfterEach
    void close() {
        if (group != null) {
            group.close();
            fabric.close();
        }
        assertThat(uncaught).isEmpty();
    }

    /** Holds {@code loop} inside a task until the returned latch is counted down. */
    private static CountDownLatch hold(EventLoop loop) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
            held.countDown();
            while (release.getCount() > 0) { // busy: BlockHound fails onSpinWait on a loop thread
                Math.sqrt(release.getCount());
            }
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    @Test
    void theCapacityIsAPowerOfTwoAndChecked() {
        assertThat(LoopOptions.DEFAULT.taskQueueCapacity()).isEqualTo(1 << 16);
        assertThat(LoopOptions.DEFAULT.withTaskQueueCapacity(100).taskQueueCapacity()).isEqualTo(128);
        assertThatThrownBy(() -> LoopOptions.DEFAULT.withTaskQueueCapacity(1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThreadThatIsNotALoopWaitsForRoomAndLosesNothing() throws Exception {
        EventLoop loop = group(1, CAPACITY).next();
        CountDownLatch release = hold(loop);
        List<Integer> order = new ArrayList<>(); // loop-confined
        AtomicInteger submitted = new AtomicInteger();
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 100; i++) {
                int n = i;
                loop.execute(() -> order.add(n));
                submitted.incrementAndGet();
            }
        });
        await().until(() -> submitted.get() == CAPACITY && producer.getState() != Thread.State.RUNNABLE
                || loop.producerWaits() > 0);
        assertThat(submitted.get()).as("the producer waits at the bound").isEqualTo(CAPACITY);
        release.countDown();
        producer.join(10_000);
        assertThat(submitted.get()).isEqualTo(100);
        List<Integer> seen = loop.submit(() -> new ArrayList<>(order)).get(10, TimeUnit.SECONDS);
        assertThat(seen).hasSize(100).isSorted();
        assertThat(loop.producerWaits()).isPositive();
    }

    @Test
    void aLoopFloodingItselfKeepsTheRestInItsOutboxInOrder() throws Exception {
        EventLoop loop = group(1, CAPACITY).next();
        List<Integer> order = new ArrayList<>();
        CompletableFuture<Long> submittedIn = new CompletableFuture<>();
        loop.execute(() -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < 1_000; i++) {
                int n = i;
                loop.execute(() -> order.add(n));
            }
            submittedIn.complete(System.nanoTime() - t0);
        });
        assertThat(submittedIn.get(10, TimeUnit.SECONDS)).as("never waited").isLessThan(TimeUnit.SECONDS.toNanos(5));
        await().until(() -> loop.submit(order::size).get() == 1_000);
        assertThat(loop.submit(() -> new ArrayList<>(order)).get()).isSorted();
        assertThat(loop.outboxDeferred()).isGreaterThanOrEqualTo(1_000 - CAPACITY);
    }

    @Test
    void aLoopNeverWaitsForAnotherLoopsFullQueue() throws Exception {
        EventLoopGroup g = group(2, CAPACITY);
        EventLoop a = g.next();
        EventLoop b = g.next();
        assertThat(a).isNotSameAs(b);
        CountDownLatch releaseA = hold(a);
        List<Integer> order = new ArrayList<>(); // a's
        CountDownLatch bSubmitted = new CountDownLatch(1);
        b.execute(() -> {
            for (int i = 0; i < 100; i++) {
                int n = i;
                a.execute(() -> order.add(n));
            }
            bSubmitted.countDown();
        });
        assertThat(bSubmitted.await(10, TimeUnit.SECONDS)).as("b went on while a was full").isTrue();
        AtomicBoolean bAlive = new AtomicBoolean();
        b.execute(() -> bAlive.set(true));
        await().untilTrue(bAlive);
        assertThat(b.outboxDeferred()).isEqualTo(100 - CAPACITY);
        releaseA.countDown();
        await().until(() -> a.submit(order::size).get() == 100);
        assertThat(a.submit(() -> new ArrayList<>(order)).get()).isSorted();
    }

    @Test
    void tasksKeptForALoopThatTerminatedRunRatherThanVanish() throws Exception {
        EventLoopGroup g = group(2, CAPACITY);
        EventLoop a = g.next();
        EventLoop b = g.next();
        CountDownLatch releaseA = hold(a);
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch bSubmitted = new CountDownLatch(1);
        b.execute(() -> {
            for (int i = 0; i < 50; i++) {
                a.execute(ran::incrementAndGet);
            }
            bSubmitted.countDown();
        });
        assertThat(bSubmitted.await(10, TimeUnit.SECONDS)).isTrue();
        releaseA.countDown();
        group.close();
        group = null;
        fabric.close();
        assertThat(ran.get()).isEqualTo(50);
    }

    @Test
    void executeFromAnotherThreadAllocatesNothing() throws Exception {
        EventLoop loop = group(1, 1 << 16).next();
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        AtomicInteger ran = new AtomicInteger();
        Runnable task = ran::incrementAndGet;
        long[] allocated = new long[1];
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int round = 0; round < 20; round++) { // warm up, then measure the last round
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    loop.execute(task);
                }
                allocated[0] = mx.getCurrentThreadAllocatedBytes() - before;
            }
        });
        producer.join(60_000);
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.get() == 200_000);
        assertThat(allocated[0]).as("bytes the producer allocated for 10,000 executes").isLessThan(1024);
    }
}
