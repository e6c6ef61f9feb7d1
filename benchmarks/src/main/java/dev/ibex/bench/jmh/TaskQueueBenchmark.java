package dev.ibex.bench.jmh;

import dev.ibex.cm.queue.MpscQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * An event loop's cross-thread task queue, two producers and the consumer at once: {@code mpsc} is the loop's queue
 * ({@link MpscQueue}, 65,536 slots; a producer that finds it full retries), {@code clq} the baseline in the same run —
 * what the loop used before: a {@link ConcurrentLinkedQueue} with an {@link AtomicInteger} count (bounded here at the
 * same 65,536, so the baseline cannot grow without end). Scores are offers (and polls) per microsecond per thread;
 * with {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes per operation: a node per offer for {@code clq},
 * none for {@code mpsc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--sun-misc-unsafe-memory-access=deny"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TaskQueueBenchmark {
    static final int CAPACITY = 1 << 16;
    static final Runnable TASK = () -> { };

    /** The loop's queue. */
    @State(Scope.Group)
    public static class Mpsc {
        final MpscQueue<Runnable> queue = new MpscQueue<>(CAPACITY);
    }

    /** The queue it replaced, as {@code EventLoop} used it (count, then add; poll, then count down). */
    @State(Scope.Group)
    public static class Clq {
        final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
        final AtomicInteger queued = new AtomicInteger();
    }

    /** A producer: one {@code execute}'s worth of queueing. */
    @Benchmark
    @Group("mpsc")
    @GroupThreads(2)
    public void mpscOffer(Mpsc s, Control control) {
        while (!s.queue.offer(TASK) && !control.stopMeasurement) { // the consumer may stop first: do not hang
            Thread.onSpinWait();
        }
    }

    /** The loop: one task taken (or none). */
    @Benchmark
    @Group("mpsc")
    @GroupThreads(1)
    public Runnable mpscPoll(Mpsc s) {
        return s.queue.poll();
    }

    /** A producer on the old queue. */
    @Benchmark
    @Group("clq")
    @GroupThreads(2)
    public void clqOffer(Clq s, Control control) {
        while (s.queued.get() >= CAPACITY && !control.stopMeasurement) {
            Thread.onSpinWait();
        }
        s.queued.incrementAndGet();
        s.queue.add(TASK);
    }

    /** The loop on the old queue. */
    @Benchmark
    @Group("clq")
    @GroupThreads(1)
    public Runnable clqPoll(Clq s) {
        Runnable r = s.queue.poll();
        if (r != null) {
            s.queued.decrementAndGet();
        }
        return r;
    }
}
