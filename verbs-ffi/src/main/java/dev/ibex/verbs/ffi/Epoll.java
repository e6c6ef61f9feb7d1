package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLL_CLOEXEC;
import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLL_CTL_ADD;
import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLL_CTL_DEL;
import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLL_CTL_MOD;

import dev.ibex.verbs.ffi.struct.EpollEvent;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An epoll instance: the set of fds an event loop waits on (CM event channel, completion channels,
 * device async fds, an {@link EventFd} for wake-ups). Level-triggered unless {@code EPOLLET} is given.
 *
 * <p>{@link #waitFor} blocks and must run on the loop thread only; {@link #add}, {@link #modify} and
 * {@link #remove} may be called from any thread (epoll itself is thread-safe). Closing while another
 * thread waits does not wake it: signal the loop's {@link EventFd} first, then close after the wait
 * returned. Methods on a closed instance throw {@link IllegalStateException}.
 */
public final class Epoll implements AutoCloseable {
    private final AtomicInteger fd;

    private Epoll(int fd) {
        this.fd = new AtomicInteger(fd);
    }

    /** {@code epoll_create1(EPOLL_CLOEXEC)}. */
    public static Epoll create() {
        return new Epoll(LibC.epollCreate1(EPOLL_CLOEXEC));
    }

    /** An array for {@code n} ready events, to reuse across {@link #waitFor} calls. */
    public static MemorySegment allocateEvents(Arena arena, int n) {
        return arena.allocate(EpollEvent.LAYOUT, n);
    }

    /** The epoll fd. */
    public int fd() {
        return open();
    }

    /**
     * Adds {@code target} with an {@code EpollFlags} event mask; {@code data} comes back in
     * {@link EpollEvent#data} when it is ready.
     */
    public void add(int target, int events, long data) {
        LibC.epollCtl(open(), EPOLL_CTL_ADD, target, events, data);
    }

    /** Changes the event mask and data of a registered fd. */
    public void modify(int target, int events, long data) {
        LibC.epollCtl(open(), EPOLL_CTL_MOD, target, events, data);
    }

    /** Removes {@code target} (do this before closing it). */
    public void remove(int target) {
        LibC.epollCtl(open(), EPOLL_CTL_DEL, target, 0, 0);
    }

    /**
     * Waits for ready fds.
     *
     * @param events array from {@link #allocateEvents}
     * @param timeoutMs -1 to wait until an event, 0 to poll
     * @return number of entries filled (0 on timeout or EINTR); read them with {@link EpollEvent}
     */
    public int waitFor(MemorySegment events, int maxEvents, int timeoutMs) {
        return LibC.epollWait(open(), events, maxEvents, timeoutMs);
    }

    private int open() {
        int f = fd.get();
        if (f < 0) {
            throw new IllegalStateException("epoll instance is closed");
        }
        return f;
    }

    /** Closes the epoll fd; idempotent. */
    @Override
    public void close() {
        int f = fd.getAndSet(-1);
        if (f >= 0) {
            LibC.close(f);
        }
    }
}
