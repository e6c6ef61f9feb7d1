package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.ProtectionDomain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fixed-size {@link Buffer}s carved from slabs of native memory, each slab registered once with one protection
 * domain. Grows a slab at a time up to {@link Options#maxBuffers()}; never blocks: when every buffer is in use
 * {@link #tryAcquire()} returns {@code null}. Shrinks when its owner calls {@link #trim} (the loop's timer): a slab
 * every buffer of which stayed free for {@link Options#idleTime()} is deregistered and its memory freed, down to
 * {@link Options#minBuffers()}.
 *
 * <p>Buffers are named by index in work request ids, so an index must never name freed memory. Slab {@code k} holds
 * the fixed index range {@code [k × buffersPerSlab, (k + 1) × buffersPerSlab)}; the slab table keeps holes where
 * slabs were freed ({@link #buffer(int)} gives {@code null} there) and growing fills the lowest hole first. A slab is
 * freed only when every buffer of it is free — none held, lent to a work request or waiting for an exposure (a
 * memory window or region over its bytes) to end — so no posted work request and no peer can name its indexes or
 * bytes. Any entirely free slab can go, not only the highest: one long-held buffer pins its own slab only. To make
 * slabs go idle, buffers are handed out lowest slab first, so a lightly used pool keeps its buffers in its low slabs
 * and the high ones empty out.
 *
 * <p>Confined to its owner thread (the event loop that created it), except {@link Buffer#release()}, which other
 * threads may call: such buffers come back through a lock-free stack and {@code releaseSignal} asks the owner to
 * {@link #drainReturns()}. Acquire and release on the owner allocate nothing.
 *
 * <p>With {@link Options#trackLeaks()} every acquisition records its stack, so {@link #leaks()} can say where each
 * unreleased buffer came from and a double release names the first one.
 *
 * <p>The parts, package-private: {@link SlabTable} (slabs, indexes, growing and trimming), {@link ReturnStack}
 * (buffers released on other threads) and {@link PoolWaiters} (tasks waiting for a buffer).
 */
public final class BufferPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);

    /**
     * How a pool is sized and registered; validated on construction.
     *
     * @param bufferSize bytes per buffer
     * @param buffersPerSlab buffers registered together as one memory region
     * @param maxBuffers the most buffers the pool will ever hold
     * @param access the access rights every slab is registered with: local only by default, because a slab's key
     *     would reach every buffer of the slab; peers get exactly the bytes and rights an exposure grants
     *     ({@code Connection.expose}). The loop device adds {@link Access#MW_BIND} where the device has memory windows.
     * @param trackLeaks record where buffers are acquired (costs a stack trace per acquisition; for tests)
     * @param minBuffers buffers {@link #trim} keeps registered however idle they are (the pool still starts empty and
     *     grows on demand); {@code maxBuffers} or more keeps every slab
     * @param idleTime how long a slab must stay entirely free, untouched, before {@link #trim} gives it back: the
     *     hysteresis that keeps a pool whose load comes and goes from registering and deregistering the same slabs
     */
    public record Options(int bufferSize, int buffersPerSlab, int maxBuffers, Set<Access> access, boolean trackLeaks,
            int minBuffers, Duration idleTime) {
        /** 8 KiB buffers, 64 per slab, at most 4096; local write only; slabs idle for 10 s go, down to 512 buffers. */
        public static final Options DEFAULT = new Options(8192, 64, 4096, EnumSet.of(Access.LOCAL_WRITE),
                Boolean.getBoolean("ibex.buffer.trackLeaks"));

        /**
         * Validates and copies the options.
         *
         * @throws IllegalArgumentException when a size is not positive, {@code minBuffers} is negative,
         *     {@code idleTime} is {@code null} or negative, or {@code access} is not a valid combination
         */
        public Options {
            if (bufferSize <= 0 || buffersPerSlab <= 0 || maxBuffers <= 0) {
                throw new IllegalArgumentException("buffer size, buffers per slab and max buffers must be positive");
            }
            if (minBuffers < 0) {
                throw new IllegalArgumentException("minBuffers must not be negative, got " + minBuffers);
            }
            if (idleTime == null || idleTime.isNegative()) {
                throw new IllegalArgumentException("idleTime must not be negative, got " + idleTime);
            }
            access = Set.copyOf(access);
            Access.validatedMask(access);
        }

        /**
         * Shrinking as {@link #DEFAULT} does: down to 512 buffers after 10 s idle.
         *
         * @param bufferSize bytes per buffer
         * @param buffersPerSlab buffers registered together as one memory region
         * @param maxBuffers the most buffers the pool will ever hold
         * @param access the access rights every slab is registered with
         * @param trackLeaks record where buffers are acquired
         */
        public Options(int bufferSize, int buffersPerSlab, int maxBuffers, Set<Access> access, boolean trackLeaks) {
            this(bufferSize, buffersPerSlab, maxBuffers, access, trackLeaks, 512, Duration.ofSeconds(10));
        }

        /**
         * A copy with another buffer size.
         *
         * @param size bytes per buffer, positive
         * @return the new options
         */
        public Options withBufferSize(int size) {
            return new Options(size, buffersPerSlab, maxBuffers, access, trackLeaks, minBuffers, idleTime);
        }

        /**
         * A copy with another slab size and limit.
         *
         * @param perSlab buffers registered together as one memory region, positive
         * @param max the most buffers the pool will ever hold, positive
         * @return the new options
         */
        public Options withSlabs(int perSlab, int max) {
            return new Options(bufferSize, perSlab, max, access, trackLeaks, minBuffers, idleTime);
        }

        /**
         * A copy with other registration rights; prefer local ones and let peers in through exposures.
         *
         * @param flags the access rights every slab is registered with
         * @return the new options
         */
        public Options withAccess(Set<Access> flags) {
            return new Options(bufferSize, buffersPerSlab, maxBuffers, flags, trackLeaks, minBuffers, idleTime);
        }

        /**
         * A copy that does or does not record where each buffer was acquired (a stack trace each: for tests).
         *
         * @param track whether to track leaks
         * @return the new options
         */
        public Options withLeakTracking(boolean track) {
            return new Options(bufferSize, buffersPerSlab, maxBuffers, access, track, minBuffers, idleTime);
        }

        /**
         * Keeps at least {@code min} buffers and gives back slabs that stayed entirely free for {@code idle}.
         *
         * @param min buffers {@link #trim} keeps registered; {@code maxBuffers} or more never shrinks
         * @param idle how long a slab must stay entirely free before it may go
         * @return the new options
         */
        public Options withShrink(int min, Duration idle) {
            return new Options(bufferSize, buffersPerSlab, maxBuffers, access, trackLeaks, min, idle);
        }
    }

    private final ProtectionDomain pd;
    private final Options options;
    private final Thread owner;
    private final String name;
    private final SlabTable table;
    private final ReturnStack returns;
    private final PoolWaiters waiters = new PoolWaiters(this);
    private volatile boolean closed;
    private Runnable growthListener;

    /**
     * A pool owned by the calling thread. It starts empty and registers slabs as buffers are acquired.
     *
     * @param pd the protection domain the slabs are registered in
     * @param options sizes, limits and registration rights
     * @param releaseSignal run (from any thread) when buffers released off the owner thread wait in the return
     *     stack; the owner then calls {@link #drainReturns()}. Runs at most once per drain.
     */
    public BufferPool(ProtectionDomain pd, Options options, Runnable releaseSignal) {
        this.pd = pd;
        this.options = options;
        this.owner = Thread.currentThread();
        this.name = "pool[" + pd.device().device().name() + ", " + options.bufferSize() + " B]";
        this.table = new SlabTable(this, pd, options);
        this.returns = new ReturnStack(releaseSignal);
    }

    /** {@return the options the pool was made with} */
    public Options options() {
        return options;
    }

    /** {@return the protection domain the slabs are registered in} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return bytes per buffer} */
    public int bufferSize() {
        return options.bufferSize();
    }

    boolean tracksLeaks() {
        return options.trackLeaks();
    }

    /**
     * A free buffer, held by the caller, or {@code null} when all {@link Options#maxBuffers()} are in use.
     * Its payload window is empty. Owner thread.
     *
     * @return a held buffer, or {@code null}
     * @throws IllegalStateException when the pool is closed or the caller is not the owner thread
     */
    public Buffer tryAcquire() {
        checkOwner();
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        if (table.free() == 0) {
            drainReturns();
            if (table.free() == 0) {
                grow();
                if (table.free() == 0) {
                    return null;
                }
            }
        }
        Buffer b = table.take();
        b.reset();
        b.releasedAt = null;
        b.acquiredAt = options.trackLeaks() ? new Throwable("acquired buffer " + b.index()) : null;
        b.state(Buffer.HELD);
        return b;
    }

    /**
     * Buffers receives leave to sends: receive queues and the SRQ take no buffer that would leave the pool with
     * {@code receiveReserve()} or fewer to hand out, so a pool whose receives could take it all (windows of their own
     * for every connection) still has buffers to send from. One sixteenth of {@link Options#maxBuffers()}, between 1
     * and 64.
     *
     * @return how many buffers receives leave free
     */
    public int receiveReserve() {
        return Math.max(1, Math.min(64, options.maxBuffers() / 16));
    }

    /**
     * {@link #tryAcquire()} for a receive: {@code null} as well when only the {@link #receiveReserve()} is left, unless
     * {@code essential} (the queue has no receive posted at all: it must never be deaf while a buffer is free).
     *
     * @param essential whether the queue has no receive posted, so the reserve may be used
     * @return a held buffer, or {@code null}
     */
    public Buffer tryAcquireForReceive(boolean essential) {
        checkOwner();
        if (!essential && headroom() <= receiveReserve()) {
            return null;
        }
        return tryAcquire();
    }

    /**
     * Runs {@code task} once, on the owner thread, when a receive queue may take a buffer again, with the rule of
     * {@link #tryAcquireForReceive(boolean)}: for an {@code essential} receive (a queue with nothing posted, deaf to
     * every message) as soon as any buffer is free ({@link #whenFree}), otherwise once more than the
     * {@link #receiveReserve()} is free ({@link #whenReceivable(Runnable)}).
     *
     * @param task what to run then (a failure is logged)
     * @param essential whether the queue has no receive posted at all
     */
    public void whenReceivable(Runnable task, boolean essential) {
        if (essential) {
            whenFree(task);
        } else {
            whenReceivable(task);
        }
    }

    /**
     * Runs {@code task} once, on the owner thread, after more than the {@link #receiveReserve()} is free again: for a
     * receive queue that {@link #tryAcquireForReceive} refused.
     *
     * @param task what to run then (a failure is logged)
     */
    public void whenReceivable(Runnable task) {
        checkOwner();
        waiters.addReceivable(task);
        if (headroom() > receiveReserve()) {
            waiters.wake();
        }
    }

    /**
     * Like {@link #tryAcquire()}, but an exhausted pool is a typed error.
     *
     * @return a held buffer
     * @throws PoolExhaustedException when every buffer is in use
     */
    public Buffer acquire() {
        Buffer b = tryAcquire();
        if (b == null) {
            throw new PoolExhaustedException(name, table.count());
        }
        return b;
    }

    /** {@return whether {@link #tryAcquire()} would give a buffer now (owner thread)} */
    public boolean canAcquire() {
        if (table.free() == 0) {
            drainReturns();
        }
        return table.free() > 0 || table.count() < options.maxBuffers();
    }

    /** {@return how many buffers the pool can still hand out: free ones and those it may still allocate (owner thread)} */
    public int headroom() {
        drainReturns();
        return headroomNow();
    }

    /** {@link #headroom()} without draining returns first (the release path, which is itself draining). */
    private int headroomNow() {
        return table.free() + options.maxBuffers() - table.count();
    }

    /**
     * Runs {@code task} once, on the owner thread, after a buffer next comes back to the pool (at once, in a later
     * task, when one is free now). For operations that wait out an exhausted pool instead of failing.
     *
     * @param task what to run then (a failure is logged)
     */
    public void whenFree(Runnable task) {
        checkOwner();
        waiters.addFree(task);
        if (table.free() > 0 || table.count() < options.maxBuffers()) {
            waiters.wake();
        }
    }

    /**
     * How the pool's owner runs {@link #runWaiters} later (its event loop's execute); set once by the owner.
     *
     * @param scheduler called on the owner thread to schedule one {@link #runWaiters} call
     */
    public void wakeWith(Runnable scheduler) {
        waiters.wakeWith(scheduler);
    }

    /**
     * Run on the owner thread each time the pool registers a slab (its owner then starts calling {@link #trim}).
     *
     * @param listener what to run; replaces an earlier one
     */
    public void onGrowth(Runnable listener) {
        this.growthListener = listener;
    }

    /** Runs the waiters while buffers are free (owner thread; scheduled by {@link #wakeWith}). */
    public void runWaiters() {
        waiters.run();
    }

    /**
     * The buffer with {@code index}, or {@code null} (for decoding work request ids; a freed slab is a hole).
     *
     * @param index a buffer index, as {@link Buffer#index()} gives
     * @return the buffer, or {@code null} when there is none with that index now
     */
    public Buffer buffer(int index) {
        return table.buffer(index);
    }

    /** {@return how many buffers are allocated now (held, lent or free), in registered slabs} */
    public int allocated() {
        return table.count();
    }

    /** {@return how many slabs (memory regions) are registered now} */
    public int slabs() {
        return table.slabs();
    }

    /** {@return bytes of memory registered now (what the slabs hold)} */
    public long registeredBytes() {
        return (long) table.count() * options.bufferSize();
    }

    /** {@return how many slabs {@link #trim} has given back so far} */
    public long slabsFreed() {
        return table.slabsFreed();
    }

    /** {@return how many buffers are free to acquire without growing} */
    public int available() {
        return table.free();
    }

    /** {@return how many buffers are held or lent now (counted by a scan: not for the data path)} */
    public int inUse() {
        int n = 0;
        for (Buffer b : table.buffers()) {
            if (b != null && !b.isFree()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Buffers held and not released, each with where it was acquired (when leaks are tracked). Call it when the
     * application should hold nothing, e.g. at the end of a test.
     *
     * @return one entry per buffer held now; empty when none is
     */
    public List<BufferLeak> leaks() {
        List<BufferLeak> out = new ArrayList<>();
        for (Buffer b : table.buffers()) {
            if (b != null && b.held()) {
                out.add(new BufferLeak(b.index(), name, b.acquiredAt));
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
        for (Buffer b : table.buffers()) {
            if (b != null && b.lent()) {
                b.reclaim();
                b.release();
                n++;
            }
        }
        return n;
    }

    /** Takes back buffers released on other threads. Owner thread only. */
    public void drainReturns() {
        Buffer b = returns.takeAll();
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
        returns.push(b);
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
        table.put(b);
        if (o != null) {
            o.released(b);
        }
        waiters.released(headroomNow());
    }

    /** Registers a slab in the lowest hole of the slab table (nothing when the table is full). */
    private void grow() {
        if (table.grow() && growthListener != null) {
            growthListener.run();
        }
    }

    /**
     * Gives back idle slabs (owner thread, from a timer; never on the data path). A slab is idle once it has been
     * entirely free and no buffer of it was taken across calls spanning {@link Options#idleTime()}; idle slabs are
     * freed highest first while more than {@link Options#minBuffers()} would remain. Deregistering happens here, on
     * the owner thread; a region the device will not deregister (a memory window still bound to it) keeps its slab.
     *
     * @param nowNanos the time now ({@link System#nanoTime()}; tests pass their own clock)
     * @return the slabs freed
     */
    public int trim(long nowNanos) {
        checkOwner();
        if (closed) {
            return 0;
        }
        drainReturns();
        int freed = table.trim(nowNanos);
        if (freed > 0) {
            LOG.debug("{}: gave back {} idle slab(s); {} left ({} buffers, {} free)", name, freed, table.slabs(),
                    table.count(), table.free());
        }
        return freed;
    }

    /** {@return whether {@link #trim} may still have something to give back: more buffers than the minimum are registered} */
    public boolean trimmable() {
        return !closed && table.count() > options.minBuffers();
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
        for (Buffer b : table.buffers()) {
            if (b != null && b.lent()) {
                lent++;
            }
        }
        closed = true;
        if (!leaks.isEmpty() || lent > 0) {
            LOG.warn("closing {} with {} unreleased and {} lent buffers; first: {}", name, leaks.size(), lent,
                    leaks.isEmpty() ? "-" : leaks.get(0));
        }
        table.closeAll();
    }

    /** {@return whether {@link #close()} was called} */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return name;
    }
}
