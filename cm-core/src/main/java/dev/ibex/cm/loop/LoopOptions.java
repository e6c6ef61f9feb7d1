package dev.ibex.cm.loop;

import dev.ibex.cm.buffer.BufferPool;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How an {@link EventLoopGroup} runs. Immutable: every {@code with…} method returns a copy with one setting
 * changed, checked at once.
 */
public final class LoopOptions {

    /**
     * One loop per CPU, 4,096-entry shared CQs (those beyond the first destroyed after 10 s without QPs), a 512-deep
     * shared receive queue per loop and device, the default buffer pool, at most 64 connects at once.
     */
    public static final LoopOptions DEFAULT = new LoopOptions();

    private int loops = Runtime.getRuntime().availableProcessors();
    private int cqEntries = 4096;
    private int completionBudget = 64;
    private int ackBatch = 16;
    private boolean perConnectionCq;
    private int srqDepth = 512;
    private BufferPool.Options buffers = BufferPool.Options.DEFAULT;
    private Duration closeTimeout = Duration.ofSeconds(5);
    private String threadName = "ibex-loop";
    private Consumer<Throwable> uncaughtHandler;
    private int maxConcurrentConnects = 64;
    private Duration queueIdleTime = Duration.ofSeconds(10);

    private LoopOptions() {}

    private LoopOptions copy() {
        LoopOptions c = new LoopOptions();
        c.loops = loops;
        c.cqEntries = cqEntries;
        c.completionBudget = completionBudget;
        c.ackBatch = ackBatch;
        c.perConnectionCq = perConnectionCq;
        c.srqDepth = srqDepth;
        c.buffers = buffers;
        c.closeTimeout = closeTimeout;
        c.threadName = threadName;
        c.uncaughtHandler = uncaughtHandler;
        c.maxConcurrentConnects = maxConcurrentConnects;
        c.queueIdleTime = queueIdleTime;
        return c;
    }

    /** {@return number of loops (threads)} */
    public int loops() {
        return loops;
    }

    /** Entries of each loop's shared CQ per device (size it for every WR of every QP sharing it). */
    public int cqEntries() {
        return cqEntries;
    }

    /** Completions one CQ may deliver per loop turn before the loop serves other sources. */
    public int completionBudget() {
        return completionBudget;
    }

    /** CQ events acknowledged together ({@code ibv_ack_cq_events} takes a mutex). */
    public int ackBatch() {
        return ackBatch;
    }

    /** Give each connection its own CQ instead of the loop's shared one. */
    public boolean perConnectionCq() {
        return perConnectionCq;
    }

    /**
     * Receives kept posted on a per-loop, per-device shared receive queue, which the RC connections in
     * {@code ReceiveMode.SHARED} (the default) take their receives from; 0 for no SRQ (every connection then has a
     * window of its own).
     */
    public int srqDepth() {
        return srqDepth;
    }

    /** {@return the registered buffer pool of each loop and device} */
    public BufferPool.Options buffers() {
        return buffers;
    }

    /** {@return how long {@link EventLoopGroup#close()} lets endpoints drain before tearing them down} */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** Prefix of the loop threads' names. */
    public String threadName() {
        return threadName;
    }

    /** Receives what tasks and callbacks throw (after it was logged); may be {@code null}. */
    public Consumer<Throwable> uncaughtHandler() {
        return uncaughtHandler;
    }

    /**
     * Connects a loop runs at once (address and route resolution, handshake); the rest wait in order, their
     * connect timeout running, so a storm of connects queues instead of overrunning the CM and the peer's
     * half-open bounds.
     */
    public int maxConcurrentConnects() {
        return maxConcurrentConnects;
    }

    /**
     * How long a shared CQ beyond a loop's first on a device, or the shared receive queue, must stay without QPs
     * before the loop destroys it (the SRQ's posted buffers go back to the pool; it is made again on next use): the
     * hysteresis that lets queues created under load go after it without churning them while connections come and
     * go. The buffer pool's counterpart is {@link BufferPool.Options#idleTime()}.
     */
    public Duration queueIdleTime() {
        return queueIdleTime;
    }

    public LoopOptions withLoops(int n) {
        positive("loops", n);
        LoopOptions c = copy();
        c.loops = n;
        return c;
    }

    public LoopOptions withCqEntries(int n) {
        positive("cqEntries", n);
        LoopOptions c = copy();
        c.cqEntries = n;
        return c;
    }

    public LoopOptions withCompletionBudget(int n) {
        positive("completionBudget", n);
        LoopOptions c = copy();
        c.completionBudget = n;
        return c;
    }

    public LoopOptions withAckBatch(int n) {
        positive("ackBatch", n);
        LoopOptions c = copy();
        c.ackBatch = n;
        return c;
    }

    public LoopOptions withPerConnectionCq(boolean on) {
        LoopOptions c = copy();
        c.perConnectionCq = on;
        return c;
    }

    public LoopOptions withSrqDepth(int depth) {
        if (depth < 0) {
            throw new IllegalArgumentException("srqDepth must not be negative, got " + depth);
        }
        LoopOptions c = copy();
        c.srqDepth = depth;
        return c;
    }

    public LoopOptions withBuffers(BufferPool.Options b) {
        LoopOptions c = copy();
        c.buffers = Objects.requireNonNull(b, "buffers");
        return c;
    }

    public LoopOptions withCloseTimeout(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("closeTimeout must not be negative, got " + d);
        }
        LoopOptions c = copy();
        c.closeTimeout = d;
        return c;
    }

    public LoopOptions withThreadName(String name) {
        LoopOptions c = copy();
        c.threadName = Objects.requireNonNull(name, "threadName");
        return c;
    }

    public LoopOptions withUncaughtHandler(Consumer<Throwable> h) {
        LoopOptions c = copy();
        c.uncaughtHandler = h;
        return c;
    }

    public LoopOptions withMaxConcurrentConnects(int n) {
        positive("maxConcurrentConnects", n);
        LoopOptions c = copy();
        c.maxConcurrentConnects = n;
        return c;
    }

    public LoopOptions withQueueIdleTime(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("queueIdleTime must not be negative, got " + d);
        }
        LoopOptions c = copy();
        c.queueIdleTime = d;
        return c;
    }

    private static void positive(String name, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + v);
        }
    }

    @Override
    public String toString() {
        return "LoopOptions[loops=" + loops + ", cqEntries=" + cqEntries + ", srqDepth=" + srqDepth
                + ", maxConcurrentConnects=" + maxConcurrentConnects + ", buffers=" + buffers + "]";
    }
}
