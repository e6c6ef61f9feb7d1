package dev.ibex.cm.spi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The seats of {@link PollerCpus}: per poller whose spin adapts, the CPU it last went idle on and when. The table is
 * a file in {@code /dev/shm} mapped by every JVM of the user on this machine, so a loop also sees the loops of other
 * processes — a server and a client started side by side share CPUs as two loops of one JVM do, and on one CPU their
 * spins cost as much (docs/benchmarks.md, "Two loops on one CPU, two processes"). Where the file cannot be made or
 * mapped the table is this JVM's own memory, as before.
 *
 * <p>Layout: a 64-byte header (a magic word, then one past the highest seat ever taken), then {@value #SEATS} seats of
 * 16 bytes: the state ({@code 0} free, else {@code TAKEN | pid << 20 | cpu + 1}, cpu -1 until the first idle poll) and
 * the time it last went idle ({@link System#nanoTime}: {@code CLOCK_MONOTONIC}, one clock for every process). A seat
 * whose process died is taken over by the next {@link #take} that finds its process gone.
 *
 * <p>Threading: a seat is written by its poller's thread and freed by {@link #leave} from any thread; any thread of any
 * process reads; nothing allocates after {@link #take}.
 */
final class PollerSeats {
    static final int SEATS = 64;
    static final long TAKEN = 1L << 62;
    private static final long CPU_BITS = (1L << 20) - 1;
    private static final long PID_BITS = ((1L << 32) - 1) << 20;
    private static final long MAGIC = 0x4942455853454154L; // "IBEXSEAT", layout 1
    private static final long HEADER = 64;
    private static final long SEAT_BYTES = 16;
    static final long BYTES = HEADER + SEATS * SEAT_BYTES;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final java.util.Set<PosixFilePermission> OWNER_ONLY = java.util.EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    private final MemorySegment table;
    private final long pidBits = (ProcessHandle.current().pid() << 20) & PID_BITS;
    private final boolean shared;

    private PollerSeats(MemorySegment table, boolean shared) {
        this.table = table;
        this.shared = shared;
    }

    /** {@return this JVM's own table: seen by no other process} */
    static PollerSeats local() {
        MemorySegment t = Arena.global().allocate(BYTES, 64);
        t.set(ValueLayout.JAVA_LONG, 0, MAGIC);
        return new PollerSeats(t, false);
    }

    /**
     * The table in {@code file}, made (mode 600, zeroed) if it is not there, or this JVM's own table when that fails or
     * the file is not this user's alone (owner and mode checked, links not followed).
     *
     * @param file the table's file, normally {@link #defaultFile()}
     * @return the table
     */
    static PollerSeats open(Path file) {
        try (FileChannel ch = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------")))) {
            // /dev/shm is everybody's: a file another user made under this name (to slow our loops) is not used
            if (!Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS).equals(
                    Files.getAttribute(Path.of("/proc/self/"), "unix:uid"))
                    || !Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
                return local();
            }
            if (ch.size() <= BYTES) {
                // one byte past the table, so that a second JVM extending the file never writes over a seat in use
                ch.write(ByteBuffer.allocate(1), BYTES);
            }
            MemorySegment t = ch.map(FileChannel.MapMode.READ_WRITE, 0, BYTES, Arena.global());
            long magic = (long) LONG.getVolatile(t, 0L);
            if (magic != MAGIC && !(magic == 0 && (boolean) LONG.compareAndSet(t, 0L, 0L, MAGIC))
                    && (long) LONG.getVolatile(t, 0L) != MAGIC) {
                return local(); // another layout: leave it to its JVMs
            }
            return new PollerSeats(t, true);
        } catch (IOException | RuntimeException e) { // no /dev/shm, read-only, no unix attribute view, a full disk...
            return local();
        }
    }

    /** {@return the table's usual file: {@code /dev/shm/ibex-poller-cpus-<user>}} */
    static Path defaultFile() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
        return Path.of("/dev/shm", "ibex-poller-cpus-" + user);
    }

    /** {@return whether other processes see this table (a file), not only this JVM} */
    boolean shared() {
        return shared;
    }

    private static long state(long seat) {
        return HEADER + seat * SEAT_BYTES;
    }

    /** {@return a free seat (or one whose process is gone), now taken, or -1 when all are taken} */
    int take() {
        for (int i = 0; i < SEATS; i++) {
            long at = state(i);
            long s = (long) LONG.getVolatile(table, at);
            if ((s == 0 || shared && (s & PID_BITS) != pidBits && gone(s)) // another process's, and it is gone
                    && LONG.compareAndSet(table, at, s, TAKEN | pidBits)) {
                LONG.setVolatile(table, at + 8, 0L);
                long high;
                while ((high = (long) LONG.getVolatile(table, 8L)) < i + 1
                        && !(boolean) LONG.compareAndSet(table, 8L, high, (long) (i + 1))) {
                    Thread.onSpinWait();
                }
                return i;
            }
        }
        return -1;
    }

    /** Whether the process that took a seat in state {@code s} is gone (its {@code /proc} entry is). */
    private static boolean gone(long s) {
        long pid = (s & PID_BITS) >>> 20;
        return pid != 0 && !Files.exists(Path.of("/proc/" + pid));
    }

    /** Frees {@code seat} (a negative one is ignored). */
    void leave(int seat) {
        if (seat >= 0) {
            LONG.setVolatile(table, state(seat), 0L);
        }
    }

    /** Notes that the poller on {@code seat} goes idle on {@code cpu} at {@code now}; a freed seat stays free. */
    void idleOn(int seat, int cpu, long now) {
        if (seat >= 0) {
            long at = state(seat);
            LONG.setVolatile(table, at + 8, now);
            long s = (long) LONG.getVolatile(table, at);
            long there = TAKEN | pidBits | (cpu + 1 & CPU_BITS);
            if (s != 0 && s != there) {
                LONG.compareAndSet(table, at, s, there);
            }
        }
    }

    /**
     * {@return the seat of a poller other than the one on {@code seat} that last went idle on {@code cpu} within
     * {@code recentNanos} before {@code now}, or -1}
     */
    int sharer(int seat, int cpu, long now, long recentNanos) {
        if (cpu < 0) {
            return -1;
        }
        long on = TAKEN | (cpu + 1 & CPU_BITS);
        int n = (int) Math.min(SEATS, (long) LONG.getVolatile(table, 8L));
        for (int i = 0; i < n; i++) {
            long at = state(i);
            if (i != seat && ((long) LONG.getVolatile(table, at) & (TAKEN | CPU_BITS)) == on
                    && now - (long) LONG.getVolatile(table, at + 8) < recentNanos) {
                return i;
            }
        }
        return -1;
    }
}
