package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.constant.EventFdFlags.EFD_CLOEXEC;
import static dev.ibex.verbs.ffi.constant.EventFdFlags.EFD_NONBLOCK;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A non-blocking eventfd: a 64-bit counter that any thread increments ({@link #signal}) to wake an event
 * loop blocked in {@link Epoll#waitFor}, and the loop resets ({@link #drain}). Readable (EPOLLIN) while the
 * counter is non-zero, so with level-triggered epoll the loop must drain it.
 *
 * <p>Neither call allocates: the 8-byte counter buffer is the calling thread's scratch memory. Methods on
 * a closed instance throw {@link IllegalStateException}.
 */
public final class EventFd implements AutoCloseable {
    private final AtomicInteger fd;

    private EventFd(int fd) {
        this.fd = new AtomicInteger(fd);
    }

    /** {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}. */
    public static EventFd create() {
        return new EventFd(LibC.eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    }

    /** {@code eventfd(initial, flags)} with any {@code EventFdFlags} ({@code EFD_SEMAPHORE} …). */
    public static EventFd create(int initial, int flags) {
        return new EventFd(LibC.eventfd(initial, flags));
    }

    /** The fd, to register with {@link Epoll#add}. */
    public int fd() {
        return open();
    }

    /** Adds 1 to the counter. */
    public void signal() {
        add(1);
    }

    /**
     * Adds {@code n} (≥ 1) to the counter.
     *
     * @return false when the counter would overflow and the fd is non-blocking (the loop is far behind
     *     but is being woken anyway, so callers may ignore it)
     */
    public boolean add(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("eventfd increments must be positive, got " + n);
        }
        MemorySegment buf = CallState.current().out1;
        buf.set(ValueLayout.JAVA_LONG, 0, n);
        return LibC.write(open(), buf) != LibC.WOULD_BLOCK;
    }

    /**
     * Reads and resets the counter (with {@code EFD_SEMAPHORE}: decrements it by 1).
     *
     * @return the value read, or 0 when the counter was already 0 (EAGAIN)
     */
    public long drain() {
        MemorySegment buf = CallState.current().out1;
        long n = LibC.read(open(), buf);
        return n == LibC.WOULD_BLOCK ? 0 : buf.get(ValueLayout.JAVA_LONG, 0);
    }

    private int open() {
        int f = fd.get();
        if (f < 0) {
            throw new IllegalStateException("eventfd is closed");
        }
        return f;
    }

    /** Closes the fd; idempotent. */
    @Override
    public void close() {
        int f = fd.getAndSet(-1);
        if (f >= 0) {
            LibC.close(f);
        }
    }
}
