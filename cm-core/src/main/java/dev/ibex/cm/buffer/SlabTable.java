package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool's slabs and its buffers by index. Slab {@code k} holds the fixed index range
 * {@code [k × buffersPerSlab, (k + 1) × buffersPerSlab)}; a freed slab leaves a hole ({@link #buffer(int)} is
 * {@code null} there) and growing fills the lowest hole first; a bitmap of the slabs with a free buffer hands out
 * the lowest slab's first, so the high slabs empty out and {@link #trim} can give them back. Taking and putting
 * back a buffer allocate nothing. Owner thread only.
 */
final class SlabTable {
    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);

    private final BufferPool pool;
    private final ProtectionDomain pd;
    private final BufferPool.Options options;
    /** The slab table, indexed by slab number; {@code null} where a slab was never made or was freed. */
    private final Slab[] slabs;
    /** Bit k: slab k exists and has a free buffer (take from the lowest). */
    private final long[] withFree;
    /** Buffers by index ({@code null} in holes), as long as the highest slab made so far needs. */
    private Buffer[] buffers = new Buffer[0];
    private int slabCount;
    private int count;
    private int freeCount;
    private long slabsFreed;

    SlabTable(BufferPool pool, ProtectionDomain pd, BufferPool.Options options) {
        this.pool = pool;
        this.pd = pd;
        this.options = options;
        int maxSlabs = (int) ((options.maxBuffers() + (long) options.buffersPerSlab() - 1) / options.buffersPerSlab());
        this.slabs = new Slab[maxSlabs];
        this.withFree = new long[(maxSlabs + 63) >>> 6];
    }

    /** {@return buffers in registered slabs (held, lent or free)} */
    int count() {
        return count;
    }

    /** {@return free buffers} */
    int free() {
        return freeCount;
    }

    /** {@return registered slabs} */
    int slabs() {
        return slabCount;
    }

    /** {@return slabs {@link #trim} gave back so far} */
    long slabsFreed() {
        return slabsFreed;
    }

    /** {@return the buffer with {@code index}, or {@code null} in a hole or beyond the highest slab} */
    Buffer buffer(int index) {
        return index >= 0 && index < buffers.length ? buffers[index] : null;
    }

    /** {@return every buffer by index, {@code null} in holes (for scans, not for the data path)} */
    Buffer[] buffers() {
        return buffers;
    }

    /** Takes a free buffer of the lowest slab that has one; there must be one ({@link #free()} &gt; 0). */
    Buffer take() {
        Slab s = slabs[lowestWithFree()];
        int index = s.free[--s.freeTop];
        if (s.freeTop == 0) {
            withFree[s.number >>> 6] &= ~(1L << s.number);
        }
        s.touched = true;
        freeCount--;
        return buffers[index];
    }

    /** Puts a buffer that has just become free back on its slab's stack. */
    void put(Buffer b) {
        Slab s = slabs[b.index() / options.buffersPerSlab()];
        if (s.freeTop == 0) {
            withFree[s.number >>> 6] |= 1L << s.number;
        }
        s.free[s.freeTop++] = b.index();
        freeCount++;
    }

    private int lowestWithFree() {
        for (int w = 0; w < withFree.length; w++) {
            if (withFree[w] != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(withFree[w]);
            }
        }
        throw new IllegalStateException(pool + ": free count " + freeCount + " but no slab has a free buffer");
    }

    /** Registers a slab in the lowest hole of the table; {@code false} when the table is full. */
    boolean grow() {
        int k = 0;
        while (k < slabs.length && slabs[k] != null) {
            k++;
        }
        if (k == slabs.length) {
            return false;
        }
        int first = k * options.buffersPerSlab();
        int n = Math.min(options.buffersPerSlab(), options.maxBuffers() - first);
        Arena arena = Arena.ofShared();
        MemoryRegion mr;
        MemorySegment memory;
        try {
            memory = arena.allocate((long) n * options.bufferSize(), 4096);
            mr = pd.registerMemory(memory, options.access());
        } catch (RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw e;
        }
        Slab s = new Slab(k, first, n, arena, mr);
        if (buffers.length < first + n) {
            buffers = java.util.Arrays.copyOf(buffers, first + n);
        }
        for (int i = 0; i < n; i++) {
            buffers[first + i] = new Buffer(pool, first + i,
                    memory.asSlice((long) i * options.bufferSize(), options.bufferSize()), mr);
        }
        for (int i = n - 1; i >= 0; i--) {
            s.free[s.freeTop++] = first + i;
        }
        slabs[k] = s;
        withFree[k >>> 6] |= 1L << k;
        slabCount++;
        count += n;
        freeCount += n;
        return true;
    }

    /** {@link BufferPool#trim}'s work: frees, highest first, the slabs idle for the options' idle time. */
    int trim(long nowNanos) {
        int freed = 0;
        long idleNanos = options.idleTime().toNanos();
        for (int k = slabs.length - 1; k >= 0; k--) {
            Slab s = slabs[k];
            if (s == null) {
                continue;
            }
            boolean idle = s.entirelyFree() && !s.touched;
            s.touched = false;
            if (!idle) {
                s.idle = false;
                continue;
            }
            if (!s.idle) {
                s.idle = true;
                s.idleSince = nowNanos;
            }
            if (nowNanos - s.idleSince >= idleNanos && count - s.size >= options.minBuffers() && free(s)) {
                freed++;
            }
        }
        slabsFreed += freed;
        return freed;
    }

    /** Deregisters an entirely free slab and frees its memory; its indexes become a hole. */
    private boolean free(Slab s) {
        try {
            s.region.close();
        } catch (RuntimeException e) {
            LOG.debug("{}: slab {} stays registered: {}", pool, s.number, e.toString());
            s.idle = false;
            return false;
        }
        for (int i = 0; i < s.size; i++) {
            buffers[s.firstIndex + i] = null; // a stale index finds nothing; a stale Buffer is FREE and refuses use
        }
        slabs[s.number] = null;
        withFree[s.number >>> 6] &= ~(1L << s.number);
        slabCount--;
        count -= s.size;
        freeCount -= s.size;
        s.arena.close();
        return true;
    }

    /** Deregisters every slab and frees the memory (the pool closes). */
    void closeAll() {
        for (int k = 0; k < slabs.length; k++) {
            Slab s = slabs[k];
            if (s == null) {
                continue;
            }
            try {
                s.region.close();
            } catch (RuntimeException e) {
                LOG.warn("deregistering a slab of {} failed: {}", pool, e.toString());
            }
            s.arena.close();
            slabs[k] = null;
        }
        slabCount = 0;
    }
}
