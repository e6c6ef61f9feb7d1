package dev.ibex.cm.loop;

import dev.ibex.cm.buffer.BufferPool;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How an {@link EventLoopGroup} runs.
 *
 * @param loops number of loops (threads)
 * @param cqEntries entries of each loop's shared CQ per device (size it for every WR of every QP sharing it)
 * @param completionBudget completions one CQ may deliver per loop turn before the loop serves other sources
 * @param ackBatch CQ events acknowledged together ({@code ibv_ack_cq_events} takes a mutex)
 * @param perConnectionCq give each connection its own CQ instead of the loop's shared one
 * @param srqDepth receives kept posted on a per-loop, per-device shared receive queue; 0 for no SRQ
 * @param buffers the registered buffer pool of each loop and device
 * @param closeTimeout how long {@link EventLoopGroup#close()} lets endpoints drain before tearing them down
 * @param threadName prefix of the loop threads' names
 * @param uncaughtHandler receives what tasks and callbacks throw (after it was logged); may be {@code null}
 */
public record LoopOptions(int loops, int cqEntries, int completionBudget, int ackBatch, boolean perConnectionCq,
        int srqDepth, BufferPool.Options buffers, Duration closeTimeout, String threadName,
        Consumer<Throwable> uncaughtHandler) {

    public static final LoopOptions DEFAULT = new LoopOptions(Runtime.getRuntime().availableProcessors(), 4096, 64, 16,
            false, 0, BufferPool.Options.DEFAULT, Duration.ofSeconds(5), "ibex-loop", null);

    public LoopOptions {
        if (loops <= 0 || cqEntries <= 0 || completionBudget <= 0 || ackBatch <= 0 || srqDepth < 0) {
            throw new IllegalArgumentException("loops, cqEntries, completionBudget and ackBatch must be positive, "
                    + "srqDepth not negative: " + loops + ", " + cqEntries + ", " + completionBudget + ", " + ackBatch
                    + ", " + srqDepth);
        }
        if (buffers == null || closeTimeout == null || closeTimeout.isNegative() || threadName == null) {
            throw new IllegalArgumentException("buffers, a non-negative closeTimeout and threadName are required");
        }
    }

    public LoopOptions withLoops(int n) {
        return new LoopOptions(n, cqEntries, completionBudget, ackBatch, perConnectionCq, srqDepth, buffers,
                closeTimeout, threadName, uncaughtHandler);
    }

    public LoopOptions withCqEntries(int n) {
        return new LoopOptions(loops, n, completionBudget, ackBatch, perConnectionCq, srqDepth, buffers, closeTimeout,
                threadName, uncaughtHandler);
    }

    public LoopOptions withCompletionBudget(int n) {
        return new LoopOptions(loops, cqEntries, n, ackBatch, perConnectionCq, srqDepth, buffers, closeTimeout,
                threadName, uncaughtHandler);
    }

    public LoopOptions withAckBatch(int n) {
        return new LoopOptions(loops, cqEntries, completionBudget, n, perConnectionCq, srqDepth, buffers, closeTimeout,
                threadName, uncaughtHandler);
    }

    public LoopOptions withPerConnectionCq(boolean on) {
        return new LoopOptions(loops, cqEntries, completionBudget, ackBatch, on, srqDepth, buffers, closeTimeout,
                threadName, uncaughtHandler);
    }

    public LoopOptions withSrqDepth(int depth) {
        return new LoopOptions(loops, cqEntries, completionBudget, ackBatch, perConnectionCq, depth, buffers,
                closeTimeout, threadName, uncaughtHandler);
    }

    public LoopOptions withBuffers(BufferPool.Options b) {
        return new LoopOptions(loops, cqEntries, completionBudget, ackBatch, perConnectionCq, srqDepth, b, closeTimeout,
                threadName, uncaughtHandler);
    }

    public LoopOptions withCloseTimeout(Duration d) {
        return new LoopOptions(loops, cqEntries, completionBudget, ackBatch, perConnectionCq, srqDepth, buffers, d,
                threadName, uncaughtHandler);
    }

    public LoopOptions withThreadName(String name) {
        return new LoopOptions(loops, cqEntries, completionBudget, ackBatch, perConnectionCq, srqDepth, buffers,
                closeTimeout, name, uncaughtHandler);
    }

    public LoopOptions withUncaughtHandler(Consumer<Throwable> h) {
        return new LoopOptions(loops, cqEntries, completionBudget, ackBatch, perConnectionCq, srqDepth, buffers,
                closeTimeout, threadName, h);
    }
}
