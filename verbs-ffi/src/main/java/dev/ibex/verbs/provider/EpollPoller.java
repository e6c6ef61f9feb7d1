package dev.ibex.verbs.provider;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.EventSource;
import dev.ibex.cm.spi.IdleSpin;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.verbs.ffi.Epoll;
import dev.ibex.verbs.ffi.EventFd;
import dev.ibex.verbs.ffi.LibC;
import dev.ibex.verbs.ffi.constant.EpollFlags;
import dev.ibex.verbs.ffi.struct.EpollEvent;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Poller} over epoll: level-triggered {@code EPOLLIN} on each registered source's non-blocking fd (CM
 * event channels, completion channels, device async fds) plus an eventfd for {@link #wakeup()}.
 *
 * <p>Each registration takes a slot; the slot number is the epoll data, so a ready fd leads to its attachment
 * with two array reads and {@link #poll} allocates nothing. Registration may happen on any thread (the arrays are
 * republished through a volatile write). Closing while another thread waits wakes it, and that thread closes the
 * fds when its wait returns, so an fd is never closed under a running {@code epoll_wait}. Closing also waits for
 * {@link #wakeup()}s already past their open check, so their eventfd write (a downcall holding this poller's arena)
 * never meets a closed arena or a closed — possibly reused — fd.
 *
 * <p>With a spin time ({@value RdmaCoreProvider#POLLER_SPIN_NANOS}), a poll that would block first repeats
 * {@code epoll_wait} with timeout 0 for up to that long (never beyond its own timeout) and returns as soon as any fd
 * is ready — a wake-up included, since the wake-up eventfd is in the same set — and only then blocks for what is
 * left of its timeout. The spin polls the fds rather than the CQs themselves, so the arm-then-poll protocol of
 * completion channels is untouched: a completion on an armed CQ shows up as its channel's fd becoming readable.
 */
final class EpollPoller extends NativeResource implements Poller {
    private static final int MAX_EVENTS = 64;
    /** epoll data of the wake-up eventfd (slots are non-negative). */
    private static final long WAKE = -1L;

    private final Epoll epoll;
    private final EventFd wake;
    /** Shared, not automatic: with memory of an automatic arena each epoll_wait may allocate. */
    private final Arena arena = Arena.ofShared();
    private final MemorySegment events = Epoll.allocateEvents(arena, MAX_EVENTS);
    /** The eventfd increment (always 1, so any thread may write it). */
    private final MemorySegment one = arena.allocate(ValueLayout.JAVA_LONG);
    /** Where the poll thread reads the eventfd counter. */
    private final MemorySegment counter = arena.allocate(ValueLayout.JAVA_LONG);
    private final AtomicBoolean wakePending = new AtomicBoolean();
    /** Wake-ups between their open check and the end of their write; closing waits for them. */
    private final AtomicInteger wakersInFlight = new AtomicInteger();
    private final ReentrantLock pollLock = new ReentrantLock();
    private final Map<EventSource, Integer> slotOf = new IdentityHashMap<>();
    private volatile EventSource[] sources = new EventSource[16];
    private volatile Object[] attachments = new Object[16];
    private int[] freeSlots = new int[16];
    private int freeCount;
    private int usedSlots;
    /**
     * How long a poll that would block spins first: {@value RdmaCoreProvider#POLLER_SPIN_NANOS} every time, or a window
     * that adapts up to {@value RdmaCoreProvider#POLLER_ADAPTIVE_SPIN_NANOS}; none by default. Guarded by
     * {@link #pollLock}.
     */
    private final IdleSpin spin;
    /** Guarded by {@link #pollLock}. */
    private long blockingWaits;

    EpollPoller(NativeFabric fabric, long spinNanos) {
        this(fabric, IdleSpin.fixed(spinNanos));
    }

    EpollPoller(NativeFabric fabric, IdleSpin spin) {
        super(fabric);
        this.spin = java.util.Objects.requireNonNull(spin, "spin");
        one.set(ValueLayout.JAVA_LONG, 0, 1L);
        this.epoll = Epoll.create();
        try {
            this.wake = EventFd.create();
            epoll.add(wake.fd(), EpollFlags.EPOLLIN, WAKE);
        } catch (RuntimeException e) {
            epoll.close();
            throw e;
        }
        tracked();
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.POLLER;
    }

    @Override
    String describe() {
        return "poller";
    }

    @Override
    public synchronized void register(EventSource source, Object attachment) {
        ensureOpen();
        if (!(source instanceof FdSource fdSource)) {
            throw new IllegalArgumentException("not an event source of the rdma-core provider: " + source);
        }
        if (slotOf.containsKey(source)) {
            throw new IllegalArgumentException("already registered: " + source);
        }
        int slot = freeCount > 0 ? freeSlots[--freeCount] : usedSlots++;
        EventSource[] s = sources;
        Object[] a = attachments;
        if (slot >= s.length) {
            s = Arrays.copyOf(s, s.length * 2);
            a = Arrays.copyOf(a, a.length * 2);
            freeSlots = Arrays.copyOf(freeSlots, s.length);
        }
        s[slot] = source;
        a[slot] = attachment;
        attachments = a;
        sources = s;
        int fd = -1;
        try {
            fd = fdSource.pollFd();
            epoll.add(fd, EpollFlags.EPOLLIN, slot);
            int wakeFd = fdSource.wakeFd();
            if (wakeFd >= 0) {
                epoll.add(wakeFd, EpollFlags.EPOLLIN, slot); // same slot: either fd makes the source ready
            }
        } catch (RuntimeException e) {
            if (fd >= 0) {
                removeQuietly(fd);
            }
            release(slot);
            throw e;
        }
        slotOf.put(source, slot);
        if (source instanceof NativeAsyncEvents async) {
            async.attached();
        }
    }

    @Override
    public synchronized void deregister(EventSource source) {
        Integer slot = source == null ? null : slotOf.remove(source);
        if (slot == null) {
            return;
        }
        if (isOpen() && source instanceof FdSource fdSource) {
            removeQuietly(fdSource.pollFd());
            int wakeFd = fdSource.wakeFd();
            if (wakeFd >= 0) {
                removeQuietly(wakeFd);
            }
        }
        release(slot);
        if (source instanceof NativeAsyncEvents a) {
            a.detached();
        }
    }

    private void removeQuietly(int fd) {
        try {
            epoll.remove(fd);
        } catch (RdmaException e) {
            // the fd was closed already (which removed it from the epoll set) or never added
        }
    }

    private void release(int slot) {
        EventSource[] s = sources;
        Object[] a = attachments;
        s[slot] = null;
        a[slot] = null;
        attachments = a;
        sources = s;
        freeSlots[freeCount++] = slot;
    }

    /** Whether {@code source} is registered here. */
    synchronized boolean isRegistered(EventSource source) {
        return slotOf.containsKey(source);
    }

    @Override
    public int poll(long timeoutNanos, ReadyHandler handler) {
        ensureOpen();
        if (handler == null) {
            throw new IllegalArgumentException("handler is required");
        }
        pollLock.lock();
        try {
            ensureOpen();
            if (spin.max() == 0 || timeoutNanos == 0) {
                return dispatch(waitFor(toMillis(timeoutNanos)), handler);
            }
            long start = System.nanoTime();
            long window = spin.spinNanos();
            if (window > 0) {
                long limit = timeoutNanos > 0 ? Math.min(window, timeoutNanos) : window;
                do {
                    int n = epoll.waitFor(events, MAX_EVENTS, 0);
                    if (n > 0) {
                        return dispatch(n, handler);
                    }
                    Thread.onSpinWait();
                } while (System.nanoTime() - start < limit);
            }
            long left = timeoutNanos < 0 ? -1 : Math.max(0, timeoutNanos - (System.nanoTime() - start));
            int n = waitFor(toMillis(left));
            if (n > 0) { // a source or the wake-up eventfd: how soon it came tells an adaptive window
                spin.blockedFor(System.nanoTime() - start);
            } else {
                spin.timedOut();
            }
            return dispatch(n, handler);
        } finally {
            if (!isOpen()) {
                closeDescriptors();
            }
            pollLock.unlock();
        }
    }

    private int waitFor(int timeoutMillis) {
        if (timeoutMillis != 0) {
            blockingWaits++;
        }
        return epoll.waitFor(events, MAX_EVENTS, timeoutMillis);
    }

    /** Hands the {@code n} events epoll returned to {@code handler}; a wake-up is consumed, not reported. */
    private int dispatch(int n, ReadyHandler handler) {
        int reported = 0;
        for (int i = 0; i < n; i++) {
            long data = EpollEvent.data(events, i);
            if (data == WAKE) {
                // read the counter first, then clear the flag: cleared first, a wake-up written in between would be
                // read away while its flag stayed set, and every later wakeup() would skip its write for good
                LibC.read(wake.fd(), counter);
                wakePending.set(false);
                continue;
            }
            int slot = (int) data;
            EventSource[] s = sources;
            Object[] a = attachments;
            if (slot < 0 || slot >= s.length || s[slot] == null) {
                continue; // deregistered by an earlier handler of this batch
            }
            handler.ready(a[slot]);
            reported++;
        }
        return reported;
    }

    /** How many {@code epoll_wait} calls that may block this poller made (tests: did a poll spin or block?). */
    long blockingWaits() {
        pollLock.lock();
        try {
            return blockingWaits;
        } finally {
            pollLock.unlock();
        }
    }

    /** How long a poll spins before blocking now (0: it blocks at once). */
    long spinNanos() {
        return spin.window();
    }

    /** The poller's spin (tests). */
    IdleSpin spin() {
        return spin;
    }

    static int toMillis(long timeoutNanos) {
        if (timeoutNanos < 0) {
            return -1;
        }
        long ms = timeoutNanos / 1_000_000L + (timeoutNanos % 1_000_000L == 0 ? 0 : 1);
        return (int) Math.min(ms, Integer.MAX_VALUE);
    }

    @Override
    public void wakeup() {
        if (!isOpen() || !wakePending.compareAndSet(false, true)) {
            return;
        }
        // Announce first, then check: close() marks the poller closed before destroy() waits for wakers, so
        // either this sees it closed or the closer sees this waker.
        wakersInFlight.incrementAndGet();
        try {
            if (isOpen()) {
                LibC.write(wake.fd(), one);
            }
        } catch (IllegalStateException e) {
            // closed concurrently: nothing to wake
        } finally {
            wakersInFlight.decrementAndGet();
        }
    }

    @Override
    void destroy() {
        java.util.List<NativeAsyncEvents> async = new java.util.ArrayList<>();
        synchronized (this) {
            for (EventSource s : java.util.List.copyOf(slotOf.keySet())) {
                if (s instanceof NativeAsyncEvents a) {
                    slotOf.remove(s);
                    async.add(a);
                }
            }
        }
        async.forEach(NativeAsyncEvents::detached); // the epoll set goes with the poller
        try {
            wake.signal();
        } catch (IllegalStateException e) {
            // already closed
        }
        if (pollLock.tryLock()) {
            try {
                closeDescriptors();
            } finally {
                pollLock.unlock();
            }
        }
        // else: a poll is running on another thread; it closes the descriptors when its wait returns
    }

    private void closeDescriptors() {
        spin.release();
        while (wakersInFlight.get() != 0) {
            Thread.yield(); // a non-blocking eventfd write: microseconds, unless the waker was descheduled
        }
        epoll.close();
        wake.close();
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
