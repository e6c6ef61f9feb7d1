package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fixed-size {@link Buffer}s carved from slabs of native memory, each slab registered once with one protection
 * domain. Grows a slab at a time up to {@link Options#maxBuffers()}; never blocks: when every buffer is in use
 * {@link #tryAcquire()} returns {@code null}.
 *
 * <p>Confined to its owner thread (the event loop that created it), except {@link Buffer#release()}, which other
 * threads may call: such buffers come back through a lock-free stack and {@code releaseSignal} asks the owner to
 * {@link #drainReturns()}. Acquire and release on the owner allocate nothing.
 *
 * <p>With {@link Options#trackLeaks()} every acquisition records its stack, so {@link #leaks()} can say where each
 * unreleased buffer came from and a double release names the first one.
 */
public final class BufferPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);

    /**
     * @param bufferSize bytes per buffer
     * @param buffersPerSlab buffers registered together as one memory region
     * @param maxBuffers the most buffers the pool will ever hold
     * @param access the access rights every slab is registered with: local only by default, because a slab's key
     *     would reach every buffer of the slab; peers get exactly the bytes and rights an exposure grants
     *     ({@code Connection.expose}). The loop device adds {@link Access#MW_BIND} where the device has memory windows.
     * @param trackLeaks record where buffers are acquired (costs a stack trace per acquisition; for tests)
     */
    public record Options(int bufferSize, int buffersPerSlab, int maxBuffers, Set<Access> access, boolean trackLeaks) {
        /** 8 KiB buffers, 64 per slab, at most 4096; local write only. */
        public static final Options DEFAULT = new Options(8192, 64, 4096, EnumSet.of(Access.LOCAL_WRITE),
                Boolean.getBoolean("ibex.buffer.trackLeaks"));

        public Options {
            if (bufferSize <= 0 || buffersPerSlab <= 0 || maxBuffers <= 0) {
                throw new IllegalArgumentException("buffer size, buffers per slab and max buffers must be positive");
            }
            access = Set.copyOf(access);
            Access.validatedMask(access);
        }

        public Options withBufferSize(int size) {
            return new Options(size, buffersPerSlab, maxBuffers, access, trackLeaks);
        }

        public Options withSlabs(int perSlab, int max) {
            return new Options(bufferSize, perSlab, max, access, trackLeaks);
        }

        public Options withAccess(Set<Access> flags) {
            return new Options(bufferSize, buffersPerSlab, maxBuffers, flags, trackLeaks);
        }

        public Options withLeakTracking(boolean track) {
            return new Options(bufferSize, buffersPerSlab, maxBuffers, access, track);
        }
    }

    private final ProtectionDomain pd;
    private final Options options;
    private final Thread owner;
    private final Runnable releaseSignal;
    private final String name;
    private final Arena arena = Arena.ofShared();
    private final List<MemoryRegion> slabs = new ArrayList<>();
    private Buffer[] buffers = new Buffer[0];
    private int count;
    private int[] free = new int[0];
    private int freeTop;
    private final AtomicReference<Buffer> returned = new AtomicReference<>();
    private final AtomicBoolean signalPending = new AtomicBoolean();
    private volatile boolean closed;
    /** One-shot tasks waiting for a free buffer (owner thread), and how they are woken. */
    private final java.util.ArrayDeque<Runnable> waiters = new java.util.ArrayDeque<>();
    private Runnable wakeScheduler;
    private boolean wakeQueued;

    /**
     * A pool owned by the calling thread.
     *
     * @param releaseSignal run (from any thread) when buffers released off the owner thread wait in the return
     *     stack; the owner then calls {@link #drainReturns()}. Runs at most once per drain.
     */
    public BufferPool(ProtectionDomain pd, Options options, Runnable releaseSignal) {
        this.pd = pd;
        this.options = options;
        this.owner = Thread.currentThread();
        this.releaseSignal = releaseSignal;
        this.name = "pool[" + pd.device().device().name() + ", " + options.bufferSize() + " B]";
    }

    public Options options() {
        return options;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    /** Bytes per buffer. */
    public int bufferSize() {
        return options.bufferSize();
    }

    boolean tracksLeaks() {
        return options.trackLeaks();
    }

    /**
     * A free buffer, held by the caller, or {@code null} when all {@link Options#maxBuffers()} are in use.
     * Its payload window is empty.
     */
    public Buffer tryAcquire() {
        checkOwner();
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        if (freeTop == 0) {
            drainReturns();
            if (freeTop == 0) {
                grow();
                if (freeTop == 0) {
                    return null;
                }
            }
        }
        Buffer b = buffers[free[--freeTop]];
        b.reset();
        b.releasedAt = null;
        b.acquiredAt = options.trackLeaks() ? new Throwable("acquired buffer " + b.index()) : null;
        b.state(Buffer.HELD);
        return b;
    }

    /**
     * Like {@link #tryAcquire()}, but an exhausted pool is a typed error.
     *
     * @throws PoolExhaustedException when every buffer is in use
     */
    public Buffer acquire() {
        Buffer b = tryAcquire();
        if (b == null) {
            throw new PoolExhaustedException(name, count);
        }
        return b;
    }

    /** Whether {@link #tryAcquire()} would give a buffer now (owner thread). */
    public boolean canAcquire() {
        if (freeTop == 0) {
            drainReturns();
        }
        return freeTop > 0 || count < options.maxBuffers();
    }

    /** Buffers the pool can still hand out: free ones and those it may still allocate (owner thread). */
    public int headroom() {
        drainReturns();
        return freeTop + options.maxBuffers() - count;
    }

    /**
     * Runs {@code task} once, on the owner thread, after a buffer next comes back to the pool (at once, in a later
     * task, when one is free now). For operations that wait out an exhausted pool instead of failing.
     */
    public void whenFree(Runnable task) {
        checkOwner();
        waiters.add(task);
        if (freeTop > 0 || count < options.maxBuffers()) {
            wake();
        }
    }

    /** How the pool's owner runs {@link #runWaiters} later (its event loop's execute); set once by the owner. */
    public void wakeWith(Runnable scheduler) {
        this.wakeScheduler = scheduler;
    }

    private void wake() {
        if (!wakeQueued && wakeScheduler != null && !waiters.isEmpty()) {
            wakeQueued = true;
            wakeScheduler.run();
        }
    }

    /** Runs the waiters while buffers are free (owner thread; scheduled by {@link #wakeWith}). */
    public void runWaiters() {
        wakeQueued = false;
        int n = waiters.size();
        for (int i = 0; i < n && !closed && canAcquire(); i++) {
            Runnable r = waiters.poll();
            if (r == null) {
                return;
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("a task waiting for a buffer of {} failed", name, e);
            }
        }
    }

    /** The buffer with {@code index}, or {@code null} (for decoding work request ids). */
    public Buffer buffer(int index) {
        return index >= 0 && index < count ? buffers[index] : null;
    }

    /** Buffers allocated so far (held, lent or free). */
    public int allocated() {
        return count;
    }

    /** Buffers ready to acquire without growing. */
    public int available() {
        return freeTop;
    }

    /** Buffers held or lent. */
    public int inUse() {
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (!buffers[i].isFree()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Buffers held and not released, each with where it was acquired (when leaks are tracked). Call it when the
     * application should hold nothing, e.g. at the end of a test.
     */
    public List<BufferLeak> leaks() {
        List<BufferLeak> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Buffer b = buffers[i];
            if (b.held()) {
                out.add(new BufferLeak(i, name, b.acquiredAt));
            }
        }
        return out;
    }

    /**
     * Takes back every buffer still lent to the hardware. Only for whoever has just destroyed every QP and SRQ that
     * could hold them (then nothing can touch them any more). Owner thread.
     *
     * @return how many came back
     */
    public int reclaimLent() {
        checkOwner();
        int n = 0;
        for (int i = 0; i < count; i++) {
            Buffer b = buffers[i];
            if (b.lent()) {
                b.reclaim();
                b.release();
                n++;
            }
        }
        return n;
    }

    /** Takes back buffers released on other threads. Owner thread only. */
    public void drainReturns() {
        signalPending.set(false);
        Buffer b = returned.getAndSet(null);
        while (b != null) {
            Buffer next = b.nextReturned;
            b.nextReturned = null;
            recycleOnOwner(b);
            b = next;
        }
    }

    void recycle(Buffer b) {
        if (closed) { // the memory is gone; nothing to give back
            b.owner = null;
            b.state(Buffer.FREE);
            return;
        }
        if (Thread.currentThread() == owner) {
            recycleOnOwner(b);
            return;
        }
        Buffer head;
        do {
            head = returned.get();
            b.nextReturned = head;
        } while (!returned.compareAndSet(head, b));
        if (signalPending.compareAndSet(false, true) && releaseSignal != null) {
            releaseSignal.run();
        }
    }

    private void recycleOnOwner(Buffer b) {
        if (!closed && !b.readyToRecycle()) {
            return; // exposed: it comes back through Buffer.exposureEnded once no peer can reach it
        }
        BufferOwner o = b.owner;
        b.owner = null;
        b.acquiredAt = null;
        if (options.trackLeaks()) {
            b.releasedAt = new Throwable("released buffer " + b.index() + " here first");
        }
        b.state(Buffer.FREE);
        if (closed) {
            return;
        }
        free[freeTop++] = b.index();
        if (o != null) {
            o.released(b);
        }
        if (!waiters.isEmpty()) {
            wake();
        }
    }

    private void grow() {
        int n = Math.min(options.buffersPerSlab(), options.maxBuffers() - count);
        if (n <= 0) {
            return;
        }
        long size = (long) n * options.bufferSize();
        MemorySegment slab = arena.allocate(size, 4096);
        MemoryRegion mr = pd.registerMemory(slab, options.access());
        slabs.add(mr);
        if (buffers.length < count + n) {
            buffers = java.util.Arrays.copyOf(buffers, count + n);
            free = java.util.Arrays.copyOf(free, count + n);
        }
        for (int i = 0; i < n; i++) {
            buffers[count + i] = new Buffer(this, count + i,
                    slab.asSlice((long) i * options.bufferSize(), options.bufferSize()), mr);
        }
        for (int i = n - 1; i >= 0; i--) {
            free[freeTop++] = count + i;
        }
        count += n;
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("acquire buffers of " + name + " on its event loop thread ("
                    + owner.getName() + "), not on " + Thread.currentThread().getName());
        }
    }

    /**
     * Deregisters every slab and frees the memory. The QPs that used the buffers must be gone. Leaked buffers are
     * logged. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        drainReturns();
        List<BufferLeak> leaks = leaks();
        int lent = 0;
        for (int i = 0; i < count; i++) {
            if (buffers[i].lent()) {
                lent++;
            }
        }
        closed = true;
        if (!leaks.isEmpty() || lent > 0) {
            LOG.warn("closing {} with {} unreleased and {} lent buffers; first: {}", name, leaks.size(), lent,
                    leaks.isEmpty() ? "-" : leaks.get(0));
        }
        for (MemoryRegion mr : slabs) {
            try {
                mr.close();
            } catch (RuntimeException e) {
                LOG.warn("deregistering a slab of {} failed: {}", name, e.toString());
            }
        }
        slabs.clear();
        arena.close();
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return name;
    }
}
