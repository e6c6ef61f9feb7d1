package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The inbox a busy QP's packets wait in: bounded, FIFO, and every packet it refuses is counted. */
class PacketInboxTest {

    @Test
    void packetsComeOutInOrderWithTheirAddresses() {
        PacketInbox in = new PacketInbox(4, 64);
        MemorySegment p = Arena.ofAuto().allocate(64);
        for (int i = 0; i < 3; i++) {
            p.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) i);
            assertThat(in.offer(p, 0, 10 + i, 100 + i, 200 + i)).isTrue();
        }
        for (int i = 0; i < 3; i++) {
            long at = in.peekOffset();
            assertThat(at).isNotNegative();
            assertThat(in.memory().get(java.lang.foreign.ValueLayout.JAVA_BYTE, at)).isEqualTo((byte) i);
            assertThat(in.length()).isEqualTo(10 + i);
            assertThat(in.srcIp()).isEqualTo(100 + i);
            assertThat(in.dstIp()).isEqualTo(200 + i);
            in.release();
        }
        assertThat(in.isEmpty()).isTrue();
        assertThat(in.dropped()).isZero();
    }

    @Test
    void oneSlotIsRefusedBecauseItCannotTellFullFromEmpty() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> new PacketInbox(1, 16));
    }

    @Test
    void oversizeAndOverflowAreDroppedAndCounted() {
        PacketInbox in = new PacketInbox(2, 16);
        MemorySegment p = Arena.ofAuto().allocate(64);
        assertThat(in.offer(p, 0, 17, 0, 0)).isFalse();
        assertThat(in.offer(p, 0, 8, 0, 0)).isTrue();
        assertThat(in.offer(p, 0, 8, 0, 0)).isTrue();
        assertThat(in.offer(p, 0, 8, 0, 0)).isFalse();
        assertThat(in.dropped()).isEqualTo(2);
        assertThat(in.clear()).isEqualTo(2);
        assertThat(in.offer(p, 0, 8, 0, 0)).isTrue();
    }

    /**
     * Regression (issue 17): {@code dropped} was a {@code volatile long} incremented by every receive thread, so drops
     * made at once were lost from the count. Refused offers from several threads must all be counted.
     */
    @Test
    void dropsFromSeveralReceiveThreadsAtOnceAreAllCounted() throws Exception {
        PacketInbox in = new PacketInbox(2, 16);
        MemorySegment p = Arena.ofAuto().allocate(16);
        assertThat(in.offer(p, 0, 8, 0, 0)).isTrue();
        assertThat(in.offer(p, 0, 8, 0, 0)).isTrue(); // full from now on
        int threads = 4;
        int each = 200_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicLong refused = new AtomicLong();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                MemorySegment mine = Arena.ofAuto().allocate(16);
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                long n = 0;
                for (int i = 0; i < each; i++) {
                    if (!in.offer(mine, 0, i % 2 == 0 ? 8 : 17, 0, 0)) {
                        n++;
                    }
                }
                refused.addAndGet(n);
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join(60_000);
        }
        assertThat(refused.get()).isEqualTo((long) threads * each);
        assertThat(in.dropped()).isEqualTo(refused.get());
    }

    /**
     * Several receive threads park packets while the QP task takes them: every accepted packet comes out exactly
     * once, whole (its bytes, length and addresses as offered), in the order each thread offered its own, and
     * accepted plus dropped is everything offered.
     */
    @Test
    void severalReceiveThreadsAndTheTaskLoseNothingAndMixNothing() throws Exception {
        int threads = 4;
        int each = 100_000;
        PacketInbox in = new PacketInbox(8, 64); // small: producers meet a full inbox all the time
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        long[] accepted = new long[threads];
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                MemorySegment mine = Arena.ofAuto().allocate(64);
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < each; i++) {
                    int length = 8 + (i % 7) * 8; // 8..56 bytes, every long of them the same stamp
                    long stamp = (long) id << 32 | i;
                    for (int o = 0; o < length; o += 8) {
                        mine.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, o, stamp);
                    }
                    if (in.offer(mine, 0, length, id, i)) {
                        accepted[id]++;
                    }
                }
            });
            ts.add(th);
            th.start();
        }
        start.await();
        int[] last = new int[threads];
        java.util.Arrays.fill(last, -1);
        long taken = 0;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (ts.stream().anyMatch(Thread::isAlive) || !in.isEmpty()) {
            assertThat(System.nanoTime()).as("within the deadline").isLessThan(deadline);
            long at = in.peekOffset();
            if (at < 0) {
                Thread.onSpinWait();
                continue;
            }
            int id = in.srcIp();
            int i = in.dstIp();
            assertThat(i).as("thread %d's order", id).isGreaterThan(last[id]);
            last[id] = i;
            assertThat(in.length()).isEqualTo(8 + (i % 7) * 8);
            long stamp = (long) id << 32 | i;
            for (int o = 0; o < in.length(); o += 8) {
                assertThat(in.memory().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + o))
                        .as("packet bytes of thread %d, #%d", id, i).isEqualTo(stamp);
            }
            in.release();
            taken++;
        }
        for (Thread th : ts) {
            th.join(10_000);
        }
        long offeredAndAccepted = java.util.Arrays.stream(accepted).sum();
        assertThat(taken).isEqualTo(offeredAndAccepted);
        assertThat(offeredAndAccepted + in.dropped()).isEqualTo((long) threads * each);
    }
}
