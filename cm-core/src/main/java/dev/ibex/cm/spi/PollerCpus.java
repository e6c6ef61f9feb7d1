package dev.ibex.cm.spi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The CPU each poller whose spin adapts last went idle on — this JVM's and, through {@link PollerSeats}' shared table,
 * those of this user's other JVMs on the machine ({@link IdleSpin#spinNanos}). Two loops that
 * share a CPU must not spin: a datagram or completion wakes a sleeping thread with a synchronous wake-up, Linux may put
 * it on the waker's CPU expecting the waker to sleep next, and a waker that spins instead keeps it waiting in that
 * CPU's run queue until the spin ends (docs/benchmarks.md, "Two loops on one CPU"). A thread running on a CPU another
 * poller last went idle on knows that poller is not running there now: it sleeps, waits for this CPU, or moved. Such
 * a pair is also parted ({@link #moveOff}).
 *
 * <p>A fixed table of {@value PollerSeats#SEATS} seats ({@link PollerSeats}); a poller beyond them, or a JVM where
 * {@code sched_getcpu} cannot be called (not Linux, native access not enabled for this module), sees no other poller and
 * spins as before.
 *
 * <p>Threading: a seat is written by its poller's thread, and freed by {@link #leave} from any thread; any thread
 * reads; nothing allocates.
 */
final class PollerCpus {
    /**
     * A poller that went idle longer ago than this is not what this loop's next message wakes: a loop of the group with
     * no traffic sleeps for seconds, and counting it would stop every spin where loops outnumber CPUs.
     */
    static final long RECENT_NANOS = 1_000_000;
    /** System property: {@code false} keeps the seats in this JVM, unseen by other processes ({@link PollerSeats}). */
    static final String SHARED_PROPERTY = "ibex.poller.seatsAcrossProcesses";
    private static final MethodHandle SCHED_GETCPU = lookup();
    /** {@code sched_getaffinity}, {@code sched_setaffinity} ({@code pid 0}: the calling thread). */
    private static final MethodHandle GETAFF = affinityCall("sched_getaffinity");
    private static final MethodHandle SETAFF = affinityCall("sched_setaffinity");
    /** {@code open}, {@code pread}: the running count in {@code /proc/loadavg} ({@link #runnable}). */
    private static final MethodHandle OPEN = libcCall("open", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle PREAD = libcCall("pread", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final int LOADAVG = openLoadavg();
    /** The seats: shared with this user's other JVMs where {@code /dev/shm} allows; null without {@code sched_getcpu}. */
    private static final PollerSeats TABLE = SCHED_GETCPU == null ? null
            : "false".equalsIgnoreCase(System.getProperty(SHARED_PROPERTY)) ? PollerSeats.local()
            : PollerSeats.open(PollerSeats.defaultFile());
    /** {@code sizeof(cpu_set_t)}: 1,024 CPUs. */
    private static final long CPU_SET_BYTES = 128;
    private static final AtomicLong MOVES = new AtomicLong();

    private PollerCpus() {}

    private static MethodHandle lookup() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !PollerCpus.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            // glibc reads it from the thread's rseq area or the vDSO: it never blocks, so no thread state transition
            return linker.defaultLookup().find("sched_getcpu").map(a -> linker.downcallHandle(a,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT), Linker.Option.critical(false))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static MethodHandle affinityCall(String name) {
        return libcCall(name, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS));
    }

    private static MethodHandle libcCall(String name, FunctionDescriptor d) {
        if (SCHED_GETCPU == null) {
            return null;
        }
        Linker linker = Linker.nativeLinker();
        return linker.defaultLookup().find(name).map(a -> linker.downcallHandle(a, d)).orElse(null);
    }

    private static int openLoadavg() {
        if (OPEN == null || PREAD == null) {
            return -1;
        }
        try (Arena a = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(a.allocateFrom("/proc/loadavg"), 0); // O_RDONLY; kept for the JVM's life
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * {@return the threads running or waiting for a CPU on the whole machine ({@code /proc/loadavg}'s fourth field
     * before the slash), or -1 when it cannot be read}
     *
     * @param buffer at least 64 bytes to read the file into
     */
    static int runnable(MemorySegment buffer) {
        if (LOADAVG < 0) {
            return -1;
        }
        try {
            long n = (long) PREAD.invokeExact(LOADAVG, buffer, Math.min(buffer.byteSize(), 128L), 0L);
            int fields = 0;
            int value = -1;
            for (long i = 0; i < n; i++) {
                byte c = buffer.get(ValueLayout.JAVA_BYTE, i);
                if (fields == 3) {
                    if (c >= '0' && c <= '9') {
                        value = (value < 0 ? 0 : value * 10) + c - '0';
                    } else {
                        return value;
                    }
                } else if (c == ' ') {
                    fields++;
                }
            }
            return -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** {@return whether this JVM can tell the calling thread's CPU} */
    static boolean available() {
        return SCHED_GETCPU != null;
    }

    /** {@return the calling thread's CPU, or -1 when it cannot be told} */
    static int currentCpu() {
        if (SCHED_GETCPU == null) {
            return -1;
        }
        try {
            return (int) SCHED_GETCPU.invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** {@return a free seat, now taken, or -1 when all are taken or the CPU cannot be told} */
    static int take() {
        return TABLE == null ? -1 : TABLE.take();
    }

    /** Frees {@code seat} (from {@link #take}; a negative one is ignored). */
    static void leave(int seat) {
        if (TABLE != null) {
            TABLE.leave(seat);
        }
    }

    /**
     * Notes that the poller on {@code seat} goes idle on {@code cpu} at {@code now} ({@link System#nanoTime}; a
     * negative seat is ignored). A seat {@link #leave} freed meanwhile (a close from another thread) stays free.
     */
    static void idleOn(int seat, int cpu, long now) {
        if (TABLE != null) {
            TABLE.idleOn(seat, cpu, now);
        }
    }

    /**
     * {@return the seat of a poller other than the one on {@code seat} — of this JVM or, where the seats are shared,
     * of another process of this user — that last went idle on {@code cpu}, within the last {@link #RECENT_NANOS}
     * before {@code now}, or -1}
     */
    static int sharer(int seat, int cpu, long now) {
        return TABLE == null ? -1 : TABLE.sharer(seat, cpu, now, RECENT_NANOS);
    }

    /** {@return how many times a poller thread of this JVM moved off a shared CPU} */
    static long moves() {
        return MOVES.get();
    }

    /** {@return a {@code cpu_set_t} (1,024 CPUs) for {@link #moveOff} and {@link #affinity}, or {@link #runnable}} */
    static MemorySegment cpuSet(Arena arena) {
        return arena.allocate(CPU_SET_BYTES, 8);
    }

    /**
     * {@return the calling thread's affinity to CPUs 0-63 as a bit mask, or 0 when it cannot be read} (tests)
     *
     * @param set a {@link #cpuSet} to read it into
     */
    static long affinity(MemorySegment set) {
        if (GETAFF == null) {
            return 0;
        }
        try {
            return (int) GETAFF.invokeExact(0, CPU_SET_BYTES, set) == 0 ? set.get(ValueLayout.JAVA_LONG, 0) : 0;
        } catch (Throwable t) {
            return 0;
        }
    }

    /**
     * Moves the calling thread off {@code cpu} to another CPU it may run on, and leaves its affinity as it was: the
     * affinity without that CPU, then the affinity again (the thread stays where the first call put it). Linux's sync
     * wake-ups keep two loops that wake each other on one CPU once they are there, and its search for an idle CPU skips
     * a cache domain as busy as two spinning loops make it, so such a pair does not part by itself for many
     * milliseconds (docs/benchmarks.md, "Two loops on one CPU").
     *
     * @param mask a {@link #cpuSet} for the affinity
     * @param others a {@link #cpuSet} for the affinity without {@code cpu}
     * @return whether the thread was moved (false: no other CPU allowed, or the calls failed)
     */
    static boolean moveOff(int cpu, MemorySegment mask, MemorySegment others) {
        if (SETAFF == null || cpu < 0 || cpu >= CPU_SET_BYTES * 8) {
            return false;
        }
        try {
            if ((int) GETAFF.invokeExact(0, CPU_SET_BYTES, mask) != 0) {
                return false;
            }
            others.copyFrom(mask);
            others.setAtIndex(ValueLayout.JAVA_LONG, cpu >>> 6,
                    others.getAtIndex(ValueLayout.JAVA_LONG, cpu >>> 6) & ~(1L << (cpu & 63)));
            long any = 0;
            for (int k = 0; k < CPU_SET_BYTES / 8; k++) {
                any |= others.getAtIndex(ValueLayout.JAVA_LONG, k);
            }
            if (any == 0) {
                return false;
            }
            boolean moved = (int) SETAFF.invokeExact(0, CPU_SET_BYTES, others) == 0;
            int restored = (int) SETAFF.invokeExact(0, CPU_SET_BYTES, mask); // a mask it had: refused only if gone
            if (moved) {
                MOVES.incrementAndGet();
            }
            return moved;
        } catch (Throwable t) {
            return false;
        }
    }
}
