package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static dev.ibex.verbs.ffi.struct.Layouts.SIZE_T;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.constant.FcntlFlags;
import dev.ibex.verbs.ffi.struct.EpollEvent;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * The few libc calls an RDMA event loop needs: epoll, eventfd, read/write/close, fcntl and error strings.
 * Failures throw {@link RdmaException} with the function name and errno. {@link Epoll} and
 * {@link EventFd} wrap these as resources.
 */
public final class LibC {
    /** What {@link #read}/{@link #write} return when a non-blocking fd would block (EAGAIN). */
    public static final long WOULD_BLOCK = -1;

    private LibC() {
    }

    private static final class H {
        static final Downcalls D = Downcalls.of(Libraries.libc());
        static final MethodHandle EPOLL_CREATE1 = D.errno("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        static final MethodHandle EPOLL_CTL = D.errno("epoll_ctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, PTR));
        static final MethodHandle EPOLL_WAIT = D.errno("epoll_wait", FunctionDescriptor.of(JAVA_INT, JAVA_INT, PTR, JAVA_INT, JAVA_INT));
        static final MethodHandle EVENTFD = D.errno("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        static final MethodHandle READ = D.errno("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, PTR, SIZE_T));
        static final MethodHandle WRITE = D.errno("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, PTR, SIZE_T));
        static final MethodHandle CLOSE = D.errno("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        /** {@code int fcntl(int fd, int cmd, ...)}: variadic, called with one {@code int} argument. */
        static final MethodHandle FCNTL = D.errno("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                Linker.Option.firstVariadicArg(2));
        static final MethodHandle STRERROR = D.plain("strerror", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle GAI_STRERROR = D.plain("gai_strerror", FunctionDescriptor.of(PTR, JAVA_INT));
    }

    /** Every libc function these bindings declare. */
    public static List<Downcalls.Function> functions() {
        return H.D.functions();
    }

    /** {@code epoll_create1(flags)}: a new epoll fd. */
    public static int epollCreate1(int flags) {
        CallState cs = CallState.current();
        int fd;
        try {
            fd = (int) H.EPOLL_CREATE1.invokeExact(cs.capture, flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (fd < 0) {
            throw RdmaErrors.failure("epoll_create1", cs.errno());
        }
        return fd;
    }

    /**
     * {@code epoll_ctl(epfd, op, fd, &{events, data})}; {@code EPOLL_CTL_DEL} ignores events and data.
     * The event struct lives in per-thread scratch memory, so this allocates nothing.
     */
    public static void epollCtl(int epfd, int op, int fd, int events, long data) {
        CallState cs = CallState.current();
        MemorySegment ev = cs.small;
        EpollEvent.events(ev, 0, events);
        EpollEvent.data(ev, 0, data);
        int rc;
        try {
            rc = (int) H.EPOLL_CTL.invokeExact(cs.capture, epfd, op, fd, ev);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc != 0) {
            throw RdmaErrors.failure("epoll_ctl", cs.errno());
        }
    }

    /**
     * {@code epoll_wait} into {@code events} (an array of {@link EpollEvent}). Blocking: never call it
     * with a critical (no-safepoint) handle.
     *
     * @param timeoutMs -1 blocks until an event, 0 polls
     * @return the number of ready entries; 0 on timeout or when interrupted by a signal (EINTR)
     */
    public static int epollWait(int epfd, MemorySegment events, int maxEvents, int timeoutMs) {
        if (maxEvents < 1 || events.byteSize() < maxEvents * EpollEvent.SIZE) {
            throw new IllegalArgumentException("events holds " + events.byteSize() / EpollEvent.SIZE
                    + " entries, maxEvents is " + maxEvents);
        }
        CallState cs = CallState.current();
        int n;
        try {
            n = (int) H.EPOLL_WAIT.invokeExact(cs.capture, epfd, events, maxEvents, timeoutMs);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (n < 0) {
            int errno = cs.errno();
            if (errno == Errno.EINTR.number()) {
                return 0;
            }
            throw RdmaErrors.failure("epoll_wait", errno);
        }
        return n;
    }

    /** {@code eventfd(initval, flags)}. */
    public static int eventfd(int initval, int flags) {
        CallState cs = CallState.current();
        int fd;
        try {
            fd = (int) H.EVENTFD.invokeExact(cs.capture, initval, flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (fd < 0) {
            throw RdmaErrors.failure("eventfd", cs.errno());
        }
        return fd;
    }

    /**
     * {@code read(fd, buf, buf.byteSize())}, retried on EINTR.
     *
     * @return bytes read (0 at end of file), or {@link #WOULD_BLOCK} when a non-blocking fd has no data
     */
    public static long read(int fd, MemorySegment buf) {
        CallState cs = CallState.current();
        while (true) {
            long n;
            try {
                n = (long) H.READ.invokeExact(cs.capture, fd, buf, buf.byteSize());
            } catch (Throwable t) {
                throw Downcalls.rethrow(t);
            }
            if (n >= 0) {
                return n;
            }
            int errno = cs.errno();
            if (errno == Errno.EAGAIN.number()) {
                return WOULD_BLOCK;
            }
            if (errno != Errno.EINTR.number()) {
                throw RdmaErrors.failure("read", errno);
            }
        }
    }

    /**
     * {@code write(fd, buf, buf.byteSize())}, retried on EINTR.
     *
     * @return bytes written, or {@link #WOULD_BLOCK} when a non-blocking fd is full
     */
    public static long write(int fd, MemorySegment buf) {
        CallState cs = CallState.current();
        while (true) {
            long n;
            try {
                n = (long) H.WRITE.invokeExact(cs.capture, fd, buf, buf.byteSize());
            } catch (Throwable t) {
                throw Downcalls.rethrow(t);
            }
            if (n >= 0) {
                return n;
            }
            int errno = cs.errno();
            if (errno == Errno.EAGAIN.number()) {
                return WOULD_BLOCK;
            }
            if (errno != Errno.EINTR.number()) {
                throw RdmaErrors.failure("write", errno);
            }
        }
    }

    /**
     * {@code close(fd)}. EINTR is not retried: on Linux the fd is released even then, and a retry could
     * close an fd another thread just opened.
     */
    public static void close(int fd) {
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.CLOSE.invokeExact(cs.capture, fd);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc != 0 && cs.errno() != Errno.EINTR.number()) {
            throw RdmaErrors.failure("close", cs.errno());
        }
    }

    /** {@code fcntl(fd, cmd, arg)} (the variadic call with one {@code int}). */
    public static int fcntl(int fd, int cmd, int arg) {
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.FCNTL.invokeExact(cs.capture, fd, cmd, arg);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc == -1) {
            throw RdmaErrors.failure("fcntl", cs.errno());
        }
        return rc;
    }

    /**
     * Sets {@code O_NONBLOCK} on {@code fd}: what every RDMA event fd (CM event channel, completion
     * channel, device async fd) needs before it joins an epoll set.
     */
    public static void setNonBlocking(int fd) {
        int flags = fcntl(fd, FcntlFlags.F_GETFL, 0);
        if ((flags & FcntlFlags.O_NONBLOCK) == 0) {
            fcntl(fd, FcntlFlags.F_SETFL, flags | FcntlFlags.O_NONBLOCK);
        }
    }

    /** Whether {@code O_NONBLOCK} is set on {@code fd}. */
    public static boolean isNonBlocking(int fd) {
        return (fcntl(fd, FcntlFlags.F_GETFL, 0) & FcntlFlags.O_NONBLOCK) != 0;
    }

    /** {@code strerror(errno)} (glibc returns static strings for known values). */
    public static String strerror(int errno) {
        try {
            return RdmaCm.cString((MemorySegment) H.STRERROR.invokeExact(errno));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code gai_strerror(code)} for the {@code EAI_*} codes {@code rdma_getaddrinfo} passes through. */
    public static String gaiStrerror(int code) {
        try {
            return RdmaCm.cString((MemorySegment) H.GAI_STRERROR.invokeExact(code));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
