package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.MemoryRegion;
import java.lang.foreign.Arena;

/**
 * One registration of a {@link BufferPool}: its own native memory (an arena, so it can be freed alone), the memory
 * region, and the stack of its free buffers. Slab {@code k} always holds buffer indexes
 * {@code [k × buffersPerSlab, k × buffersPerSlab + size)}, whether or not it exists at the moment.
 * Confined to the pool's owner thread.
 */
final class Slab {
    final int number;
    final int firstIndex;
    final int size;
    final Arena arena;
    final MemoryRegion region;
    /** Global indexes of the free buffers; the lowest on top when the slab is new. */
    final int[] free;
    int freeTop;
    /** A buffer was taken since the last {@link BufferPool#trim} looked. */
    boolean touched;
    /** Seen entirely free and untouched by {@link BufferPool#trim} since {@link #idleSince}. */
    boolean idle;
    long idleSince;

    Slab(int number, int firstIndex, int size, Arena arena, MemoryRegion region) {
        this.number = number;
        this.firstIndex = firstIndex;
        this.size = size;
        this.arena = arena;
        this.region = region;
        this.free = new int[size];
    }

    boolean entirelyFree() {
        return freeTop == size;
    }
}
