package dev.ibex.cm.loop;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.RecvBatch;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that blocks in its provider {@link Poller} and runs everything of the endpoints it owns: CM events
 * (dispatched to endpoint state machines), completions (arm-then-poll, budgeted per CQ and turn so a busy CQ
 * cannot starve the others), async events, tasks and timers. Nothing on the thread blocks except the poller's
 * wait.
 *
 * <p>A turn: run queued tasks (FIFO per submitting thread), run due timers, poll the sources (without waiting
 * when work is pending), deliver completions, flush batched sends and receives. {@link #execute} and
 * {@link #schedule} may be called from any thread; the other public methods are for endpoints, on the loop.
 */
public final class EventLoop implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class);

    private static final int RUNNING = 0;
    private static final int SHUTTING_DOWN = 1;
    private static final int TERMINATED = 2;
    private static final long OUTBOX_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A pollable source's reader (the poller's attachment). */
    @FunctionalInterface
    interface Source {
        void onReady();
    }

    private final EventLoopGroup group;
    private final int index;
    private final LoopOptions options;
    private final Fabric fabric;
    private final Poller poller;
    private final EventChannel cmChannel;
    private final LoopThread thread;
    /** Tasks from every thread, with their back-pressure; see {@link #execute}. */
    private final LoopTasks tasks;
    private final LoopTimers timers = new LoopTimers(this::guarded, System::nanoTime);
    private final CqSpin cqSpin;
    private final EndpointTable endpoints = new EndpointTable();
    private final LoopDevices devices = new LoopDevices(this, endpoints);
    private final List<dev.ibex.cm.spi.EventSource> watched = new ArrayList<>();
    private final Map<Class<?>, Object> attachments = new IdentityHashMap<>();
    private final LoopCompletions completions;
    private final ArrayDeque<Flushable> flushes = new ArrayDeque<>();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Poller.ReadyHandler readyHandler = a -> ((Source) a).onReady();
    private final Arena arena = Arena.ofShared();
    private final RecvBatch recvBatch;
    private volatile int phase = RUNNING;
    /** The graceful shutdown's deadline and sequence; the phase stays here. */
    private final LoopShutdown stopping;
    private final PollFailures pollFailures = new PollFailures(this);
    /** Written on the loop only (single writer), read from any thread by metrics. */
    private volatile long creditStalls;

    EventLoop(EventLoopGroup group, int index, LoopOptions options) {
        this.group = group;
        this.index = index;
        this.options = options;
        this.fabric = group.fabric();
        this.completions = new LoopCompletions(this, endpoints,
                CompletionBatch.allocate(arena, Math.min(32, options.completionBudget())), options.completionBudget());
        this.recvBatch = RecvBatch.allocate(arena, 64, 1);
        this.poller = fabric.createLoopPoller(); // polled without pause: the provider may work inline on it
        this.tasks = new LoopTasks(this, poller, options.taskQueueCapacity());
        this.cqSpin = new CqSpin(options.cqPollSpin().toNanos(), options.cqPollSpinLookInterval(), devices.list(),
                completions, tasks, poller, readyHandler);
        try {
            this.cmChannel = fabric.createEventChannel();
            poller.register(cmChannel, new CmDispatch(this, cmChannel));
            this.stopping = new LoopShutdown(this, endpoints, devices, watched, poller, cmChannel);
        } catch (RuntimeException e) {
            poller.close();
            throw e;
        }
        this.thread = new LoopThread(this, this::run, options.threadName() + "-" + index);
    }

    void start() {
        thread.start();
    }

    /**
     * Whether {@code t} is an event loop thread (to tell BlockHound which threads must not block). Any thread.
     *
     * @param t a thread
     * @return whether it is the thread of some {@code EventLoop}
     */
    public static boolean isLoopThread(Thread t) {
        return t instanceof LoopThread;
    }

    /** {@return the group this loop belongs to} */
    public EventLoopGroup group() {
        return group;
    }

    /**
     * The loop's single instance of {@code type}, made by {@code create} on first use: per-loop state of the layers
     * above (e.g. the connect gate), without the loop knowing them. Loop thread only.
     *
     * @param <T> the attachment's type
     * @param type the attachment's type, its key
     * @param create makes the instance the first time, given this loop
     * @return the loop's instance of {@code type}
     * @throws IllegalStateException when called off the loop thread
     */
    public <T> T attachment(Class<T> type, java.util.function.Function<EventLoop, T> create) {
        checkInLoop();
        return type.cast(attachments.computeIfAbsent(type, k -> create.apply(this)));
    }

    /** {@return the provider fabric the loop's group was opened on} */
    public Fabric fabric() {
        return fabric;
    }

    /** {@return this loop's position in its group} */
    public int index() {
        return index;
    }

    /** {@return the options of the loop's group} */
    public LoopOptions options() {
        return options;
    }

    /** {@return whether the calling thread is this loop's thread} */
    public boolean inEventLoop() {
        return Thread.currentThread() == thread;
    }

    /** {@return whether the loop stopped accepting new endpoints (the group is closing)} */
    public boolean isShuttingDown() {
        return phase != RUNNING;
    }

    /**
     * Runs {@code task} on the loop thread, after the tasks the calling thread submitted before. Wakes the loop if
     * it waits. Any thread; allocates nothing (the queue is a bounded ring, {@link LoopOptions#taskQueueCapacity()}).
     * When the queue is full, nothing is lost and no loop thread waits: a thread that is not an event loop waits
     * (spins, yields, then parks briefly) until there is room — back-pressure on whoever floods the loop — and an
     * event loop thread (this one or another) keeps the task in its outbox and offers it again at the start of each
     * of its turns, before its later tasks.
     *
     * @throws RejectedExecutionException when the loop has terminated
     * @throws NullPointerException when {@code task} is null
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (phase == TERMINATED) {
            throw new RejectedExecutionException("event loop " + thread.getName() + " has terminated");
        }
        tasks.add(task);
    }

    /** {@return whether the loop has terminated: it runs no more tasks of its own} */
    boolean isTerminated() {
        return phase == TERMINATED;
    }

    /** {@return the loop's task queue (a loop thread's outbox sends to it)} */
    LoopTasks tasks() {
        return tasks;
    }

    /** {@return how many times a thread that is not a loop waited for room in this loop's full task queue} */
    long producerWaits() {
        return tasks.producerWaits();
    }

    /** {@return how many tasks this loop's thread had to keep in its outbox because a task queue was full} */
    long outboxDeferred() {
        return tasks.outboxDeferred();
    }

    /**
     * Runs {@code task} now when on the loop, else {@link #execute}s it. Any thread.
     *
     * @param task what to run on the loop thread
     * @throws RejectedExecutionException when called off the loop and the loop has terminated
     */
    public void run(Runnable task) {
        if (inEventLoop()) {
            task.run();
        } else {
            execute(task);
        }
    }

    /**
     * Runs {@code task} on the loop and completes with its result (convenient off the loop; allocates). Any thread.
     *
     * @param <T> the result's type
     * @param task what to run on the loop thread
     * @return completes with the task's result, or exceptionally with what it threw
     * @throws RejectedExecutionException when the loop has terminated
     */
    public <T> CompletableFuture<T> submit(Callable<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        execute(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /**
     * Runs {@code task} on the loop after {@code delay}. No thread per timer. Any thread.
     *
     * @param task what to run on the loop thread
     * @param delay how long to wait; negative counts as 0
     * @param unit the unit of {@code delay}
     * @return a handle to cancel the timer with
     */
    public ScheduledTask schedule(Runnable task, long delay, TimeUnit unit) {
        long deadline = System.nanoTime() + Math.max(0, unit.toNanos(delay));
        ScheduledTask t = new ScheduledTask(this, task, deadline);
        if (inEventLoop()) {
            timers.add(t);
        } else {
            execute(() -> timers.add(t));
        }
        return t;
    }

    void removeTimer(ScheduledTask t) {
        timers.remove(t);
    }

    /** {@return a future that completes when the thread has stopped and everything the loop owned is closed} */
    public CompletableFuture<Void> terminationFuture() {
        return terminated;
    }

    // ---- for endpoints (loop thread) ----

    /** {@return the loop's CM event channel: ids created on it are dispatched by this loop} */
    public EventChannel cmChannel() {
        return cmChannel;
    }

    /**
     * The loop's resources on {@code context}, created on first use. Loop thread only.
     *
     * @param context an open device of the loop's fabric
     * @return the loop's protection domain, CQs, SRQ and windows on that device
     * @throws IllegalStateException when called off the loop thread, or the loop is shutting down
     */
    public LoopDevice device(DeviceContext context) {
        checkInLoop();
        LoopDevice d = devices.get(context);
        if (d == null) {
            if (phase != RUNNING) {
                throw new IllegalStateException("event loop " + thread.getName() + " is shutting down");
            }
            d = devices.create(context);
            group.ensureAsyncReader(context);
        }
        return d;
    }

    /**
     * Registers an endpoint so the loop dispatches completions to it and closes it at shutdown. Loop thread only.
     *
     * @param endpoint the endpoint, which the loop holds until {@link #unregister}
     * @return its handle, for {@link WrId#encode}
     * @throws IllegalStateException when the loop is shutting down
     */
    public int register(LoopEndpoint endpoint) {
        checkInLoop();
        if (phase != RUNNING) {
            throw new IllegalStateException("event loop " + thread.getName() + " is shutting down");
        }
        return endpoints.add(endpoint);
    }

    /**
     * Forgets an endpoint; later completions naming its handle are dropped as stale. Loop thread only.
     *
     * @param handle the handle {@link #register} returned
     * @param endpoint the endpoint registered with it (a handle reused since is left alone)
     */
    public void unregister(int handle, LoopEndpoint endpoint) {
        checkInLoop();
        endpoints.remove(handle, endpoint);
        devices.endpointGone();
    }

    /** {@return how many endpoints are registered now} */
    public int endpointCount() {
        return endpoints.size();
    }

    /**
     * Queues {@code f} to be flushed at the end of this turn (the caller keeps a flag to queue it once). Loop thread.
     *
     * @param f what to flush: batched sends or receives
     */
    public void requestFlush(Flushable f) {
        flushes.add(f);
    }

    /** {@return a reusable receive batch for posting (loop thread, within one call)} */
    public RecvBatch recvBatch() {
        return recvBatch;
    }

    /**
     * Hands a callback failure to the loop's uncaught-exception policy (logs it). Any thread.
     *
     * @param t what a callback threw
     */
    public void reportUncaught(Throwable t) {
        group.reportUncaught(thread.getName(), t);
    }

    /**
     * Polls {@code source} on this loop as well: {@code onReady} runs on the loop whenever it is ready (it must drain
     * the source without blocking). For sources of the layers above (a CM channel or completion channel of their own,
     * see cm-reactive's event streams). Call {@link #unwatch} before closing the source. Loop thread only.
     *
     * @param source a source of the loop's fabric
     * @param onReady drains the source, on the loop thread; a failure goes to the uncaught-exception policy
     * @throws IllegalStateException when the loop is shutting down
     */
    public void watch(dev.ibex.cm.spi.EventSource source, Runnable onReady) {
        checkInLoop();
        if (phase != RUNNING) {
            throw new IllegalStateException("event loop " + thread.getName() + " is shutting down");
        }
        poller.register(source, (Source) () -> guarded(onReady));
        watched.add(source);
    }

    /**
     * Stops polling a source given to {@link #watch} (no-op when absent). Loop thread only.
     *
     * @param source the source
     */
    public void unwatch(dev.ibex.cm.spi.EventSource source) {
        checkInLoop();
        if (watched.remove(source)) {
            poller.deregister(source);
        }
    }

    Poller poller() {
        return poller;
    }

    void ready(WatchedCq w) {
        completions.ready(w);
    }

    private void checkInLoop() {
        if (!inEventLoop()) {
            throw new IllegalStateException("call this on the event loop thread " + thread.getName() + ", not "
                    + Thread.currentThread().getName());
        }
    }

    // ---- the loop ----

    private void run() {
        try {
            // run() is entered once, so its loop is compiled only by on-stack replacement, and a thread whose OSR code
            // was deoptimized went on interpreting it (docs/benchmarks.md, "A loop's turn is a method"); a turn is a
            // method called at every turn, which the JIT compiles, and recompiles, like any hot method
            while (turn()) {
                // the turn did it all
            }
        } catch (Throwable t) {
            LOG.error("event loop {} stopped by an unexpected error", thread.getName(), t);
        } finally {
            terminate();
        }
    }

    /** One turn of the loop: tasks, due timers, a wait for events, completions, the sends they made. */
    private boolean turn() {
        tasks.runTurn();
        timers.runDue();
        if (phase == SHUTTING_DOWN && !tasks.keepsTasks() && stopping.done()) { // kept tasks delivered first
            return false;
        }
        waitForEvents();
        completions.pass();
        flush();
        return true;
    }

    private void waitForEvents() {
        long timeout;
        if (tasks.pending() || completions.hasReady() || !flushes.isEmpty()) {
            timeout = 0;
        } else {
            timeout = timers.untilNext();
            if (phase == SHUTTING_DOWN) {
                timeout = stopping.clamp(timeout);
            }
            if (tasks.keepsTasks()) { // another loop's full queue: offer again soon
                timeout = timeout < 0 ? OUTBOX_RETRY_NANOS : Math.min(timeout, OUTBOX_RETRY_NANOS);
            }
        }
        if (cqSpin.enabled()) {
            if (timeout == 0) {
                cqSpin.pollUnarmed();
            } else if (cqSpin.spinThenRearm(timeout, timers.now())) {
                return; // a completion, a task or a ready source came while spinning (or before re-arming): no wait
            }
        }
        if (timeout != 0 && !tasks.sleep()) { // a task raced in before the flag was visible
            timeout = 0;
        }
        try {
            poller.poll(timeout, readyHandler);
        } catch (RuntimeException e) {
            pollFailures.failed(e, timeout);
        } finally {
            tasks.awake();
        }
    }

    /** Whether this loop busy-polls its CQs ({@link LoopOptions#cqPollSpin()}): it leaves them unarmed meanwhile. */
    boolean spinsOnCqs() {
        return cqSpin.enabled();
    }

    /**
     * Rejects and destroys a request id nobody will answer; a failing reject is ignored. Loop thread.
     *
     * @param id the id of a {@code CONNECT_REQUEST}
     */
    public static void rejectStray(CmId id) {
        try {
            id.reject(new byte[0]);
        } catch (RuntimeException ignored) {
            // the peer learns from the destroy as well
        } finally {
            id.close();
        }
    }

    /**
     * Polls {@code cq} until it is empty now, dispatching what it holds, outside the loop's regular pass: a
     * connection on a shared receive queue uses it before it counts as drained, so that receives completed before
     * the peer's disconnect reach it first. From a task only (never while completions are being dispatched).
     *
     * @param cq a CQ of this loop; others are ignored
     * @throws IllegalStateException when called off the loop or while completions are being dispatched
     */
    public void pollCq(CompletionQueue cq) {
        checkInLoop();
        completions.pollCq(cq);
    }

    private void flush() {
        Flushable f;
        while ((f = flushes.poll()) != null) {
            try {
                f.flush();
            } catch (Throwable t) {
                reportUncaught(t);
            }
        }
    }

    void guarded(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            reportUncaught(t);
        }
    }

    // ---- async events ----

    /** Reads {@code source} on this loop for the group. Loop thread. */
    void registerAsync(AsyncEventSource source) {
        devices.readAsync(source);
    }

    /** Gives a port, device, CQ or SRQ event to every endpoint of this loop on the event's device. */
    void broadcast(AsyncEvent e) {
        devices.broadcast(e);
    }

    /**
     * {@code device} is going away (DEVICE_FATAL, or the CM's DEVICE_REMOVAL for an id on it; rxe raises only the
     * latter): nobody reads its async events any more, and this loop releases its resources on it once no endpoint
     * uses it, so that the provider can let the device go. The loop calls it for the events it reads itself; a
     * component that reads the CM events of a channel of its own ({@code RdmaCmChannel}) calls it on DEVICE_REMOVAL.
     * Idempotent. Loop thread only.
     *
     * @param device the device the event named ({@code null} is ignored)
     * @throws IllegalStateException when called off the loop thread
     */
    public void deviceRemoved(DeviceContext device) {
        checkInLoop();
        if (device == null) {
            return;
        }
        group.stopAsyncReader(device);
        devices.removed(device);
    }

    /** Stops reading {@code source} (its device was removed). Loop thread. */
    void deregisterAsync(AsyncEventSource source) {
        devices.stopReadingAsync(source);
    }

    // ---- shutdown ----

    /** Starts a graceful shutdown: endpoints close (draining), then resources, then the thread ends. */
    void shutdown() {
        try {
            execute(() -> {
                if (phase == RUNNING) {
                    phase = SHUTTING_DOWN;
                    stopping.begin();
                }
            });
        } catch (RejectedExecutionException alreadyTerminated) {
            // nothing to do
        }
    }

    private void terminate() {
        stopping.release();
        phase = TERMINATED;
        tasks.terminate(); // what raced in before TERMINATED was visible, and what this thread kept
        quietly(arena::close);
        terminated.complete(null);
    }

    void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("closing a resource of {} failed: {}", thread.getName(), e.toString());
        }
    }

    /** A connection of this loop spent its last send credit: it waits for the peer to return some. Loop thread. */
    public void countCreditStall() {
        creditStalls++; // one writer: the loop
    }

    /** {@return how many times a connection of this loop ran out of send credits (any thread; racy snapshot)} */
    public long creditStalls() {
        return creditStalls;
    }

    @Override
    public String toString() {
        return thread.getName();
    }

    Thread thread() {
        return thread;
    }

    /** The loop devices (for leak checks), loop thread. */
    List<LoopDevice> devices() {
        return devices.snapshot();
    }
}
