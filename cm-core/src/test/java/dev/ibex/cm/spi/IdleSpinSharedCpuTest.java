package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * An adaptive spin and the thread it wakes on one CPU (Linux: both pinned with {@code sched_setaffinity}), as the two
 * loops of a loopback pair end up when the kernel places a woken thread on its waker's CPU: the woken thread runs while
 * the spin goes on, within about {@link IdleSpin#YIELD_INTERVAL_NANOS}, not when the kernel preempts the spinner.
 * Here it waited a median of 0.18–4.5 ms without the yields, and 11–20 µs with them.
 */
class IdleSpinSharedCpuTest {
    private static final long SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    @Test
    void aThreadWokenOntoTheCpuOfAnAdaptiveSpinRunsWhileItSpins() throws Exception {
        assumeTrue(Affinity.available(), "needs Linux's sched_setaffinity and sched_getcpu");
        long[] latency = new long[9];
        for (int i = 0; i < latency.length; i++) {
            latency[i] = wakeLatency(IdleSpin.adaptive(SPIN_NANOS));
        }
        Arrays.sort(latency);
        assertThat(latency[latency.length / 2]).as("median ns from the spinner's unpark to the peer running, of "
                + Arrays.toString(latency)).isLessThan(TimeUnit.MICROSECONDS.toNanos(100));
    }

    /** Nanoseconds from a spinner's unpark of a parked thread on its CPU to that thread running. */
    private static long wakeLatency(IdleSpin spin) throws Exception {
        int cpu = Affinity.currentCpu();
        CompletableFuture<Long> ran = new CompletableFuture<>();
        long[] wokeAt = new long[1];
        Thread peer = new Thread(() -> {
            Affinity.pin(cpu);
            LockSupport.park();
            ran.complete(System.nanoTime());
        }, "peer");
        peer.start();
        while (peer.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        Thread spinner = new Thread(() -> {
            Affinity.pin(cpu);
            Thread.yield();
            wokeAt[0] = System.nanoTime();
            LockSupport.unpark(peer);
            long start = System.nanoTime();
            long now = start;
            spin.spinStarts(start);
            while (!ran.isDone() && now - start < SPIN_NANOS) {
                spin.pause(now);
                now = System.nanoTime();
            }
        }, "spinner");
        spinner.start();
        long t = ran.get(10, TimeUnit.SECONDS);
        spinner.join();
        return t - wokeAt[0];
    }

    /** The calling thread's CPU affinity, through libc. */
    static final class Affinity {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle SETAFFINITY = find("sched_setaffinity", FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        private static final MethodHandle GETCPU = find("sched_getcpu", FunctionDescriptor.of(ValueLayout.JAVA_INT));

        private static MethodHandle find(String name, FunctionDescriptor d) {
            return LINKER.defaultLookup().find(name).map(a -> LINKER.downcallHandle(a, d)).orElse(null);
        }

        static boolean available() {
            return SETAFFINITY != null && GETCPU != null && System.getProperty("os.name").startsWith("Linux");
        }

        static int currentCpu() {
            try {
                return (int) GETCPU.invokeExact();
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static void pin(int cpu) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment mask = a.allocate(128);
                mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
                int rc = (int) SETAFFINITY.invokeExact(0, 128L, mask);
                if (rc != 0) {
                    throw new IllegalStateException("sched_setaffinity(" + cpu + ") failed");
                }
            } catch (Throwable e) {
                throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
            }
        }
    }
}
