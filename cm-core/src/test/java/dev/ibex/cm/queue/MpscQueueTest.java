package dev.ibex.cm.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class MpscQueueTest {
    private static final int PRODUCERS = 4;

    @Test
    void capacityIsRoundedUpToAPowerOfTwoAndChecked() {
        assertThat(new MpscQueue<>(2).capacity()).isEqualTo(2);
        assertThat(new MpscQueue<>(3).capacity()).isEqualTo(4);
        assertThat(new MpscQueue<>(1024).capacity()).isEqualTo(1024);
        assertThatThrownBy(() -> new MpscQueue<>(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MpscQueue<>((1 << 30) + 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFullQueueRefusesAndAnEmptyOneGivesNull() {
        MpscQueue<Integer> q = new MpscQueue<>(4);
        assertThat(q.poll()).isNull();
        assertThat(q.isEmpty()).isTrue();
        for (int lap = 0; lap < 5; lap++) { // across the wrap-around, where sequences of two laps meet
            for (int i = 0; i < 4; i++) {
                assertThat(q.offer(lap * 10 + i)).isTrue();
            }
            assertThat(q.offer(-1)).as("full").isFalse();
            assertThat(q.size()).isEqualTo(4);
            assertThat(q.poll()).isEqualTo(lap * 10);
            assertThat(q.offer(lap * 10 + 4)).as("one slot free again").isTrue();
            assertThat(q.offer(-1)).isFalse();
            for (int i = 1; i <= 4; i++) {
                assertThat(q.poll()).isEqualTo(lap * 10 + i);
            }
            assertThat(q.poll()).isNull();
            assertThat(q.isEmpty()).isTrue();
            assertThat(q.size()).isZero();
        }
    }

    @Test
    void nullIsRefused() {
        assertThatThrownBy(() -> new MpscQueue<>(2).offer(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void manyProducersLoseNothingAndKeepTheirOrder() throws Exception {
        int perProducer = 200_000;
        MpscQueue<long[]> q = new MpscQueue<>(64); // small: producers meet a full ring all the time
        long[][] items = items(perProducer);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int id = p;
            producers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    while (!q.offer(items[id * perProducer + i])) {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        long[] next = new long[PRODUCERS];
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        for (long taken = 0; taken < (long) PRODUCERS * perProducer; ) {
            long[] e = q.poll();
            if (e == null) {
                assertThat(System.nanoTime()).as("items stopped coming").isLessThan(deadline);
                Thread.onSpinWait();
                continue;
            }
            int id = (int) e[0];
            assertThat(e[1]).as("producer %d's order", id).isEqualTo(next[id]);
            next[id]++;
            taken++;
        }
        for (Thread t : producers) {
            t.join(10_000);
        }
        assertThat(next).containsOnly(perProducer);
        assertThat(q.poll()).isNull();
        assertThat(q.isEmpty()).isTrue();
    }

    /**
     * The sleep handshake of the class comment: a consumer that announces it sleeps, checks {@code isEmpty()} and
     * parks, and producers that wake it when they see the announcement after their offer. A lost wake-up leaves
     * the consumer parked for the whole (long) park time and the test over its deadline.
     */
    @Test
    void aParkedConsumerIsAlwaysWokenUp() throws Exception {
        int perProducer = 20_000;
        MpscQueue<long[]> q = new MpscQueue<>(16);
        long[][] items = items(perProducer);
        Sleeper consumer = new Sleeper(q, PRODUCERS * perProducer);
        consumer.thread.start();
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int id = p;
            producers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    while (!q.offer(items[id * perProducer + i])) {
                        Thread.yield();
                    }
                    if (consumer.sleeping) {
                        LockSupport.unpark(consumer.thread);
                    }
                    if ((i & 63) == 0) {
                        LockSupport.parkNanos(1_000); // let the consumer run dry and park now and then
                    }
                }
            }));
        }
        consumer.thread.join(TimeUnit.MINUTES.toMillis(2));
        assertThat(consumer.thread.isAlive()).as("consumer left parked: a lost wake-up").isFalse();
        assertThat(consumer.taken).isEqualTo(PRODUCERS * perProducer);
        assertThat(consumer.parks).as("the consumer did park").isPositive();
        for (Thread t : producers) {
            t.join(10_000);
        }
    }

    @Test
    void offerAndPollAllocateNothing() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        MpscQueue<Object> q = new MpscQueue<>(1024);
        Object e = new Object();
        for (int i = 0; i < 100_000; i++) { // warm up (compile) both paths
            q.offer(e);
            q.poll();
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            q.offer(e);
            q.poll();
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes for 100,000 offer/poll pairs").isLessThan(1024);
    }

    private static long[][] items(int perProducer) {
        long[][] items = new long[PRODUCERS * perProducer][];
        for (int p = 0; p < PRODUCERS; p++) {
            for (int i = 0; i < perProducer; i++) {
                items[p * perProducer + i] = new long[] {p, i};
            }
        }
        return items;
    }

    /** A consumer that parks (for up to 10 s at a time) whenever the queue is empty. */
    private static final class Sleeper implements Runnable {
        final Thread thread = Thread.ofPlatform().unstarted(this);
        final MpscQueue<long[]> q;
        final int expected;
        volatile boolean sleeping;
        int taken;
        int parks;

        Sleeper(MpscQueue<long[]> q, int expected) {
            this.q = q;
            this.expected = expected;
        }

        @Override
        public void run() {
            long[] next = new long[PRODUCERS];
            while (taken < expected) {
                long[] e = q.poll();
                if (e != null) {
                    if (e[1] != next[(int) e[0]]++) {
                        throw new AssertionError("producer " + e[0] + " out of order at " + e[1]);
                    }
                    taken++;
                    continue;
                }
                sleeping = true;
                if (q.isEmpty()) {
                    parks++;
                    long t0 = System.nanoTime();
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(10));
                    if (System.nanoTime() - t0 >= TimeUnit.SECONDS.toNanos(10)) {
                        sleeping = false;
                        return; // lost wake-up: taken stays short
                    }
                }
                sleeping = false;
            }
        }
    }
}
