package dev.ibex.cm.spi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How long a {@link Poller} spins (polls without blocking) before it blocks, for the one thread that polls.
 *
 * <p>A spin trades CPU for the thread wake-up a blocking wait costs when work comes: on a machine where a wake-up
 * takes longer than the peer's answer (virtual CPUs, idle cores in deep sleep) a short spin saves latency and CPU
 * both. Three kinds:
 * <ul>
 *   <li>{@link #none()}: block at once.
 *   <li>{@link #fixed}: every idle poll spins the same time — a core traded for latency, for applications that own one.
 *   <li>{@link #adaptive}: the window follows the waits, as Linux KVM's halt polling does. A wait that blocked and
 *       ended within the maximum would have been caught by a longer spin: the window grows (from
 *       {@value #GROW_START_NANOS} ns, doubling, up to the maximum). A wait that lasted longer than the maximum (or
 *       timed out) would have been spun in vain: the window halves, and falls to 0 below the starting value. A spin that
 *       catches its work leaves the window as it is. So a loop whose peer answers within the maximum stops sleeping
 *       between messages, and one whose traffic is sparse spins at most the few windows it takes to shrink.
 * </ul>
 *
 * <p>Threading: confined to the polling thread, but {@link #release} (any thread); allocates nothing after its first
 * idle polls.
 */
public final class IdleSpin {
    /** The first window an adaptive spin opens: a fraction of a wake-up, so a useless spin costs little. */
    public static final long GROW_START_NANOS = 2_000;

    private final long max;
    private final boolean adaptive;
    private long window;
    /** This poller's seat in {@link PollerCpus}: -2 none yet (taken at the first idle poll), -1 none, -3 released. */
    private volatile int seat = -2;
    /** The affinity and the affinity without the shared CPU, for a move; made at the first. */
    private MemorySegment[] cpuSets;
    /** {@link #cpuToSpare}'s last reading, when it was made, and the buffer it reads into (made at the first). */
    private boolean spare;
    private long spareReadAt = System.nanoTime() - 2_000_000L;
    private MemorySegment loadBuffer;
    /** When this poller's thread last moved off a shared CPU ({@link #spinNanos}). */
    private long lastMove = System.nanoTime() - MOVE_INTERVAL_NANOS;
    /** System property: {@code false} keeps a poller's thread on a shared CPU (it still does not spin there). */
    public static final String MOVE_PROPERTY = "ibex.poller.moveOffSharedCpu";
    private static final boolean MOVE = Boolean.parseBoolean(System.getProperty(MOVE_PROPERTY, "true"));
    /** The least time between two moves of one poller's thread: a pair Linux keeps putting together is parted again. */
    private static final long MOVE_INTERVAL_NANOS = 10_000_000L;
    /** This JVM's processors, read once ({@code availableProcessors} asks the kernel for the affinity each time). */
    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();
    private static final VarHandle SEAT;

    static {
        try {
            SEAT = MethodHandles.lookup().findVarHandle(IdleSpin.class, "seat", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private IdleSpin(long max, boolean adaptive) {
        if (max < 0) {
            throw new IllegalArgumentException("a spin time must not be negative, got " + max);
        }
        this.max = max;
        this.adaptive = adaptive;
        this.window = adaptive ? 0 : max;
        if (adaptive && max > 0) {
            // loads PollerCpus now, on the thread that makes the poller: its seat table opens and maps a file, which
            // the loop thread's first idle poll must not do
            PollerCpus.available();
        }
    }

    /** {@return a poller's spin that never spins: it blocks at once} */
    public static IdleSpin none() {
        return new IdleSpin(0, false);
    }

    /**
     * A spin of {@code nanos} at every idle poll.
     *
     * @param nanos how long each idle poll spins (0: never)
     * @return the spin
     * @throws IllegalArgumentException when {@code nanos} is negative
     */
    public static IdleSpin fixed(long nanos) {
        return new IdleSpin(nanos, false);
    }

    /**
     * A spin whose window adapts to the waits, between 0 and {@code maxNanos}; it starts at 0.
     *
     * @param maxNanos the longest an idle poll spins, and the longest wait the window grows for (0: never spins)
     * @return the spin
     * @throws IllegalArgumentException when {@code maxNanos} is negative
     */
    public static IdleSpin adaptive(long maxNanos) {
        return new IdleSpin(maxNanos, true);
    }

    /** {@return how long the next idle poll spins before it blocks, in nanoseconds (0: it blocks at once)} */
    public long window() {
        return window;
    }

    /**
     * How long this idle poll spins before it blocks: the {@link #window}, or 0 (block at once) for an adaptive spin
     * while another poller whose spin adapts (of this JVM or another of this user's, {@link PollerSeats}) last went
     * idle on the calling thread's CPU. That poller is
     * not running there now; what this loop sends may wake it, and Linux may put it on this CPU expecting this thread
     * to sleep: a spin here would keep it waiting until the spin ends (docs/benchmarks.md, "Two loops on one CPU"). Of
     * two such pollers the later also moves its thread to another CPU, at most once per 10 ms ({@link
     * PollerCpus#moveOff}; {@value #MOVE_PROPERTY}{@code =false}: never). Only a poller idle within the last
     * millisecond counts, and both rules apply only while the machine has about a CPU to spare ({@link #cpuToSpare});
     * under load the spin is as before. A fixed spin always spins: its owner traded a core for it. Called by the
     * polling thread at each idle poll.
     *
     * @return nanoseconds to spin (0: block at once)
     */
    public long spinNanos() {
        long w = window;
        if (!adaptive || max == 0) {
            return w;
        }
        int s = seat;
        if (s == -2) {
            s = PollerCpus.take();
            if (!SEAT.compareAndSet(this, -2, s)) { // released meanwhile
                PollerCpus.leave(s);
                return w;
            }
        }
        if (s < 0) {
            return w;
        }
        int cpu = PollerCpus.currentCpu();
        long now = System.nanoTime();
        PollerCpus.idleOn(s, cpu, now);
        int other = PollerCpus.sharer(s, cpu, now);
        if (other < 0 || !cpuToSpare(now)) {
            return w; // all CPUs taken: sharing one is the rule, not the fault, and the spin keeps what it gains there
        }
        if (MOVE && other < s) {
            if (now - lastMove > MOVE_INTERVAL_NANOS) {
                lastMove = now;
                if (cpuSets == null) {
                    Arena memory = Arena.ofAuto();
                    cpuSets = new MemorySegment[] {PollerCpus.cpuSet(memory), PollerCpus.cpuSet(memory)};
                }
                PollerCpus.moveOff(cpu, cpuSets[0], cpuSets[1]);
            }
        }
        return 0;
    }

    /** {@return how many times the thread of an adaptive spin of this JVM moved off a CPU another poller shared} */
    public static long sharedCpuMoves() {
        return PollerCpus.moves();
    }

    /**
     * Whether the machine has about a CPU to spare (no more threads running or waiting for a CPU than this JVM's
     * processors, plus one: the pair on one CPU and a passing JIT, GC or timer thread), read from {@code /proc/loadavg}
     * at most once a millisecond. Under load, loops share CPUs with everything else, and moving or not spinning there
     * made the RSocket TCK's {@code requestChannel256} slower (docs/benchmarks.md, "Two loops on one CPU").
     */
    private boolean cpuToSpare(long now) {
        if (now - spareReadAt > 1_000_000L) {
            spareReadAt = now;
            if (loadBuffer == null) {
                loadBuffer = PollerCpus.cpuSet(Arena.ofAuto());
            }
            int runnable = PollerCpus.runnable(loadBuffer);
            spare = runnable >= 0 && runnable <= PROCESSORS + 1;
        }
        return spare;
    }

    /** The poller is closed: its seat is freed for another (any thread). */
    public void release() {
        int s = (int) SEAT.getAndSet(this, -3);
        if (s >= 0) {
            PollerCpus.leave(s);
        }
    }

    /** {@return whether the window adapts to the waits} */
    public boolean isAdaptive() {
        return adaptive;
    }

    /** {@return the longest window, in nanoseconds} */
    public long max() {
        return max;
    }

    /**
     * An idle poll's spin (if any) found nothing, it blocked, and work or a wake-up ended the wait {@code idleNanos}
     * after the poll went idle (the spin included). A poller that can tell when the work came, not only when its thread
     * woke for it, passes the former: a spin catches work as it comes, so the thread's wake-up delay — tens of µs
     * on some virtual machines, more than the answer it waits for — must not keep the window shut.
     *
     * @param idleNanos how long the poll was idle until the work came (or, where that is not known, until it woke)
     */
    public void blockedFor(long idleNanos) {
        if (!adaptive) {
            return;
        }
        if (idleNanos <= max) {
            window = window == 0 ? Math.min(GROW_START_NANOS, max) : Math.min(max, window * 2);
        } else {
            shrink();
        }
    }

    /** An idle poll blocked until its timeout: no work came that a spin could have caught. */
    public void timedOut() {
        if (adaptive) {
            shrink();
        }
    }

    private void shrink() {
        long half = window / 2;
        window = half < GROW_START_NANOS ? 0 : half;
    }

    @Override
    public String toString() {
        return adaptive ? "IdleSpin[adaptive, max " + max + " ns, window " + window + " ns]"
                : "IdleSpin[" + (max == 0 ? "none" : "fixed " + max + " ns") + "]";
    }
}
