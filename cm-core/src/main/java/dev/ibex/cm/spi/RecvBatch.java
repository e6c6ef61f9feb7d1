package dev.ibex.cm.spi;

import static dev.ibex.cm.spi.VerbsAbi.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable array of receive work requests in {@code struct ibv_recv_wr} layout with their {@code ibv_sge}
 * arrays; see {@link SendBatch} for the conventions.
 */
public final class RecvBatch {
    private final MemorySegment segment;
    private final int capacity;
    private final int maxSge;
    private final long sgeBase;

    private RecvBatch(MemorySegment segment, int capacity, int maxSge) {
        this.segment = segment;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.sgeBase = (long) capacity * RECV_WR_SIZE;
        for (int i = 0; i < capacity; i++) {
            clear(i);
        }
    }

    public static RecvBatch allocate(Arena arena, int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity and maxSge must be positive, got " + capacity + ", " + maxSge);
        }
        long size = (long) capacity * RECV_WR_SIZE + (long) capacity * maxSge * SGE_SIZE;
        return new RecvBatch(arena.allocate(size, 8), capacity, maxSge);
    }

    public MemorySegment segment() {
        return segment;
    }

    public int capacity() {
        return capacity;
    }

    public int maxSge() {
        return maxSge;
    }

    private static long wr(int i) {
        return (long) i * RECV_WR_SIZE;
    }

    private long sge(int i, int j) {
        return sgeBase + ((long) i * maxSge + j) * SGE_SIZE;
    }

    public RecvBatch clear(int i) {
        segment.asSlice(wr(i), RECV_WR_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_SG_LIST, segment.address() + sge(i, 0));
        return this;
    }

    public RecvBatch wrId(int i, long wrId) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_WR_ID, wrId);
        return this;
    }

    public RecvBatch sge(int i, int j, long addr, int length, int lkey) {
        if (j >= maxSge) {
            throw new IndexOutOfBoundsException("sge " + j + " of a batch with maxSge " + maxSge);
        }
        long s = sge(i, j);
        segment.set(ValueLayout.JAVA_LONG, s + SGE_ADDR, addr);
        segment.set(ValueLayout.JAVA_INT, s + SGE_LENGTH, length);
        segment.set(ValueLayout.JAVA_INT, s + SGE_LKEY, lkey);
        return this;
    }

    public RecvBatch numSge(int i, int n) {
        if (n < 0 || n > maxSge) {
            throw new IllegalArgumentException("numSge must be within 0.." + maxSge + ", got " + n);
        }
        segment.set(ValueLayout.JAVA_INT, wr(i) + RECV_WR_NUM_SGE, n);
        return this;
    }

    public RecvBatch single(int i, long addr, int length, int lkey) {
        return sge(i, 0, addr, length, lkey).numSge(i, 1);
    }

    /** Chains WRs 0..count-1; returns the native address of WR 0. */
    public long link(int count) {
        if (count <= 0 || count > capacity) {
            throw new IllegalArgumentException("count must be within 1.." + capacity + ", got " + count);
        }
        long base = segment.address();
        for (int i = 0; i < count - 1; i++) {
            segment.set(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_NEXT, base + wr(i + 1));
        }
        segment.set(ValueLayout.JAVA_LONG, wr(count - 1) + RECV_WR_NEXT, 0L);
        return base;
    }

    public int indexOf(long wrAddress) {
        return (int) ((wrAddress - segment.address()) / RECV_WR_SIZE);
    }

    public long wrId(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_WR_ID);
    }

    public int numSge(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + RECV_WR_NUM_SGE);
    }

    public long sgeAddr(int i, int j) {
        return segment.get(ValueLayout.JAVA_LONG, sge(i, j) + SGE_ADDR);
    }

    public int sgeLength(int i, int j) {
        return segment.get(ValueLayout.JAVA_INT, sge(i, j) + SGE_LENGTH);
    }

    public int sgeLkey(int i, int j) {
        return segment.get(ValueLayout.JAVA_INT, sge(i, j) + SGE_LKEY);
    }
}
