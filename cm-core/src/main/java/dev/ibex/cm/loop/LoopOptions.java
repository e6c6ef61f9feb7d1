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
    private int taskQueueCapacity = 1 << 16;
    private Duration cqPollSpin = Duration.ZERO;
    private int cqPollSpinLookInterval = 16;

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
        c.taskQueueCapacity = taskQueueCapacity;
        c.cqPollSpin = cqPollSpin;
        c.cqPollSpinLookInterval = cqPollSpinLookInterval;
        return c;
    }

    /** {@return number of loops (threads)} */
    public int loops() {
        return loops;
    }

    /** {@return the entries of each loop's shared CQ per device (size it for every WR of every QP sharing it)} */
    public int cqEntries() {
        return cqEntries;
    }

    /** {@return how many completions one CQ may deliver per loop turn before the loop serves other sources} */
    public int completionBudget() {
        return completionBudget;
    }

    /** {@return how many CQ events are acknowledged together ({@code ibv_ack_cq_events} takes a mutex)} */
    public int ackBatch() {
        return ackBatch;
    }

    /** {@return whether each connection gets its own CQ instead of the loop's shared one} */
    public boolean perConnectionCq() {
        return perConnectionCq;
    }

    /**
     * Receives kept posted at least on a per-loop, per-device shared receive queue, which the RC connections in
     * {@code ReceiveMode.SHARED} (the default) take their receives from; 0 for no SRQ (every connection then has a
     * window of its own). Beyond it the SRQ is kept filled to the receive windows its connections granted (what their
     * peers may have in flight toward it), up to a quarter of the pool, the device's {@code max_srq_wr} and half of
     * {@link #cqEntries()}.
     *
     * @return the SRQ's depth in receives, 0 for none
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

    /** {@return the prefix of the loop threads' names (the loop's index follows it)} */
    public String threadName() {
        return threadName;
    }

    /** {@return the handler that receives what tasks and callbacks throw (after it was logged); may be {@code null}} */
    public Consumer<Throwable> uncaughtHandler() {
        return uncaughtHandler;
    }

    /**
     * Connects a loop runs at once (address and route resolution, handshake); the rest wait in order, their
     * connect timeout running, so a storm of connects queues instead of overrunning the CM and the peer's
     * half-open bounds.
     *
     * @return the most connects in progress at once per loop
     */
    public int maxConcurrentConnects() {
        return maxConcurrentConnects;
    }

    /**
     * The bound of each loop's queue of tasks submitted with {@link EventLoop#execute} (default 65,536). When it is
     * full a thread that is not an event loop waits until there is room (back-pressure) and a loop thread keeps the
     * task in its own outbox and offers it again on its next turns: no task is lost and no loop thread waits.
     *
     * @return the most tasks a loop's queue holds, a power of two
     */
    public int taskQueueCapacity() {
        return taskQueueCapacity;
    }

    /**
     * How long a shared CQ beyond a loop's first on a device, or the shared receive queue, must stay without QPs
     * before the loop destroys it (the SRQ's posted buffers go back to the pool; it is made again on next use): the
     * hysteresis that lets queues created under load go after it without churning them while connections come and
     * go. The buffer pool's counterpart is {@link BufferPool.Options#idleTime()}.
     *
     * @return how long an extra queue must stay unused before it goes
     */
    public Duration queueIdleTime() {
        return queueIdleTime;
    }

    /**
     * A copy with another number of loops.
     *
     * @param n loops (threads) per group, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is not positive
     */
    public LoopOptions withLoops(int n) {
        positive("loops", n);
        LoopOptions c = copy();
        c.loops = n;
        return c;
    }

    /**
     * A copy with another shared CQ size.
     *
     * @param n entries of each loop's shared CQ per device, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is not positive
     */
    public LoopOptions withCqEntries(int n) {
        positive("cqEntries", n);
        LoopOptions c = copy();
        c.cqEntries = n;
        return c;
    }

    /**
     * A copy with another per-CQ budget per turn: lower is fairer between CQs, higher polls fewer times.
     *
     * @param n completions one CQ may deliver per loop turn, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is not positive
     */
    public LoopOptions withCompletionBudget(int n) {
        positive("completionBudget", n);
        LoopOptions c = copy();
        c.completionBudget = n;
        return c;
    }

    /**
     * A copy that acknowledges CQ events in other batches.
     *
     * @param n CQ events acknowledged together, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is not positive
     */
    public LoopOptions withAckBatch(int n) {
        positive("ackBatch", n);
        LoopOptions c = copy();
        c.ackBatch = n;
        return c;
    }

    /**
     * A copy that gives each connection its own CQ, or shares the loop's.
     *
     * @param on whether each connection gets its own CQ
     * @return the new options
     */
    public LoopOptions withPerConnectionCq(boolean on) {
        LoopOptions c = copy();
        c.perConnectionCq = on;
        return c;
    }

    /**
     * A copy with another shared receive queue depth.
     *
     * @param depth receives kept posted at least on each loop's SRQ per device; 0 for no SRQ
     * @return the new options
     * @throws IllegalArgumentException when {@code depth} is negative
     */
    public LoopOptions withSrqDepth(int depth) {
        if (depth < 0) {
            throw new IllegalArgumentException("srqDepth must not be negative, got " + depth);
        }
        LoopOptions c = copy();
        c.srqDepth = depth;
        return c;
    }

    /**
     * A copy with another buffer pool per loop and device.
     *
     * @param b the pool's options
     * @return the new options
     * @throws NullPointerException when {@code b} is {@code null}
     */
    public LoopOptions withBuffers(BufferPool.Options b) {
        LoopOptions c = copy();
        c.buffers = Objects.requireNonNull(b, "buffers");
        return c;
    }

    /**
     * A copy with another close timeout.
     *
     * @param d how long closing the group lets endpoints drain, not negative
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is {@code null} or negative
     */
    public LoopOptions withCloseTimeout(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("closeTimeout must not be negative, got " + d);
        }
        LoopOptions c = copy();
        c.closeTimeout = d;
        return c;
    }

    /**
     * A copy with another thread name prefix.
     *
     * @param name the prefix of the loop threads' names
     * @return the new options
     * @throws NullPointerException when {@code name} is {@code null}
     */
    public LoopOptions withThreadName(String name) {
        LoopOptions c = copy();
        c.threadName = Objects.requireNonNull(name, "threadName");
        return c;
    }

    /**
     * A copy with another handler for what tasks and callbacks throw.
     *
     * @param h called with each failure after it was logged; {@code null} for logging only
     * @return the new options
     */
    public LoopOptions withUncaughtHandler(Consumer<Throwable> h) {
        LoopOptions c = copy();
        c.uncaughtHandler = h;
        return c;
    }

    /**
     * A copy with another bound on connects in progress per loop.
     *
     * @param n the most connects a loop runs at once, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is not positive
     */
    public LoopOptions withMaxConcurrentConnects(int n) {
        positive("maxConcurrentConnects", n);
        LoopOptions c = copy();
        c.maxConcurrentConnects = n;
        return c;
    }

    /**
     * A copy with another idle time for extra CQs and the SRQ.
     *
     * @param d how long an extra queue must stay unused before it goes, not negative
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is {@code null} or negative
     */
    public LoopOptions withQueueIdleTime(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("queueIdleTime must not be negative, got " + d);
        }
        LoopOptions c = copy();
        c.queueIdleTime = d;
        return c;
    }

    /**
     * {@return how long an idle loop busy-polls its CQs before it blocks for their events (zero, the default: never)}
     * While it spins the loop polls each CQ it reads without waiting for a completion event — as {@code ib_send_lat}
     * does by default — and looks at its other sources every few polls, so a completion is seen without the
     * event-channel wake-up. A CQ whose notification came is left unarmed while the loop spins (no event, channel read
     * and re-arm per completion) and armed again, then polled once, before the loop blocks. It costs a core per loop
     * for the spin time after each burst of work: for loops that own a core.
     */
    public Duration cqPollSpin() {
        return cqPollSpin;
    }

    /**
     * A copy whose loops busy-poll their CQs for {@code d} before blocking (see {@link #cqPollSpin()}).
     *
     * @param d the spin time; zero turns it off
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is {@code null} or negative
     */
    public LoopOptions withCqPollSpin(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("cqPollSpin must not be negative, got " + d);
        }
        LoopOptions c = copy();
        c.cqPollSpin = d;
        return c;
    }

    /**
     * {@return how many rounds of CQ polls a loop spinning on its CQs ({@link #cqPollSpin()}) makes between two looks
     * at its other sources and its clock (default 16)} A look is a poll of the loop's poller without waiting (an
     * {@code epoll_wait} system call on rdma-core: CM events, other watched sources) and a clock read for the end of
     * the spin; queued tasks are seen every round regardless. A larger interval makes the spin cheaper where these
     * calls are slow (an emulated clock), and makes the loop notice a CM event or the end of its spin that many polls
     * later: both are bounded by the interval times the time of a round.
     */
    public int cqPollSpinLookInterval() {
        return cqPollSpinLookInterval;
    }

    /**
     * A copy whose spinning loops look at their other sources and their clock every {@code rounds} rounds of CQ
     * polls (see {@link #cqPollSpinLookInterval()}).
     *
     * @param rounds the rounds between two looks, from 1 to 2<sup>20</sup>
     * @return the new options
     * @throws IllegalArgumentException when {@code rounds} is out of range
     */
    public LoopOptions withCqPollSpinLookInterval(int rounds) {
        if (rounds < 1 || rounds > 1 << 20) {
            throw new IllegalArgumentException("cqPollSpinLookInterval must be from 1 to 2^20, got " + rounds);
        }
        LoopOptions c = copy();
        c.cqPollSpinLookInterval = rounds;
        return c;
    }

    /**
     * A copy with another bound on each loop's task queue (see {@link #taskQueueCapacity()}).
     *
     * @param n the most tasks a loop's queue holds, from 2 to 2<sup>30</sup>, rounded up to a power of two
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is out of range
     */
    public LoopOptions withTaskQueueCapacity(int n) {
        if (n < 2 || n > 1 << 30) {
            throw new IllegalArgumentException("taskQueueCapacity must be from 2 to 2^30, got " + n);
        }
        LoopOptions c = copy();
        c.taskQueueCapacity = Integer.highestOneBit(n - 1) << 1;
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
