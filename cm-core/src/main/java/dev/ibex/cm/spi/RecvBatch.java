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

    /**
     * A batch of {@code capacity} receive WRs with room for {@code maxSge} scatter/gather entries each, every WR
     * cleared.
     *
     * @param arena where the native memory comes from; the batch lives as long as it
     * @param capacity how many WRs the batch holds, positive
     * @param maxSge scatter/gather entries per WR, positive
     * @return the new batch
     * @throws IllegalArgumentException when {@code capacity} or {@code maxSge} is not positive
     */
    public static RecvBatch allocate(Arena arena, int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity and maxSge must be positive, got " + capacity + ", " + maxSge);
        }
        long size = (long) capacity * RECV_WR_SIZE + (long) capacity * maxSge * SGE_SIZE;
        return new RecvBatch(arena.allocate(size, 8), capacity, maxSge);
    }

    /** {@return the native memory of the batch: the WRs, then their scatter/gather arrays} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return how many WRs the batch holds} */
    public int capacity() {
        return capacity;
    }

    /** {@return how many scatter/gather entries each WR has room for} */
    public int maxSge() {
        return maxSge;
    }

    private static long wr(int i) {
        return (long) i * RECV_WR_SIZE;
    }

    private long sge(int i, int j) {
        return sgeBase + ((long) i * maxSge + j) * SGE_SIZE;
    }

    /**
     * Resets WR {@code i} to zero (keeping its scatter/gather pointer).
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @return this batch
     */
    public RecvBatch clear(int i) {
        segment.asSlice(wr(i), RECV_WR_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_SG_LIST, segment.address() + sge(i, 0));
        return this;
    }

    /**
     * Sets the id the receive's completion reports.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param wrId the work request id, e.g. made by {@code WrId.encode}
     * @return this batch
     */
    public RecvBatch wrId(int i, long wrId) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_WR_ID, wrId);
        return this;
    }

    /**
     * Sets scatter/gather entry {@code j} of WR {@code i}; does not change the WR's entry count.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param j the entry's index, below {@link #maxSge()}
     * @param addr the entry's start address in registered memory
     * @param length the entry's length in bytes
     * @param lkey the local key of the memory region it lies in
     * @return this batch
     * @throws IndexOutOfBoundsException when {@code j} is not below {@link #maxSge()}
     */
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

    /**
     * Sets how many scatter/gather entries WR {@code i} uses.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param n the entry count, 0 to {@link #maxSge()}
     * @return this batch
     * @throws IllegalArgumentException when {@code n} is out of range
     */
    public RecvBatch numSge(int i, int n) {
        if (n < 0 || n > maxSge) {
            throw new IllegalArgumentException("numSge must be within 0.." + maxSge + ", got " + n);
        }
        segment.set(ValueLayout.JAVA_INT, wr(i) + RECV_WR_NUM_SGE, n);
        return this;
    }

    /**
     * Shorthand: exactly one scatter/gather entry covering {@code [addr, addr+length)} of an MR.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param addr the start address in registered memory
     * @param length the length in bytes
     * @param lkey the local key of the memory region
     * @return this batch
     */
    public RecvBatch single(int i, long addr, int length, int lkey) {
        return sge(i, 0, addr, length, lkey).numSge(i, 1);
    }

    /**
     * Chains WRs 0..count-1 through their {@code next} pointers (the last gets NULL).
     *
     * @param count how many WRs to chain, 1 to {@link #capacity()}
     * @return the native address of WR 0
     * @throws IllegalArgumentException when {@code count} is out of range
     */
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

    /**
     * The index of the WR at native address {@code wrAddress} (to map a provider's {@code bad_wr}).
     *
     * @param wrAddress the address of one of this batch's WRs
     * @return its index
     */
    public int indexOf(long wrAddress) {
        return (int) ((wrAddress - segment.address()) / RECV_WR_SIZE);
    }

    /**
     * {@return the work request id, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long wrId(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + RECV_WR_WR_ID);
    }

    /**
     * {@return how many scatter/gather entries WR {@code i} uses}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int numSge(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + RECV_WR_NUM_SGE);
    }

    /**
     * {@return the start address of scatter/gather entry {@code j} of WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param j the entry's index, below {@link #maxSge()}
     */
    public long sgeAddr(int i, int j) {
        return segment.get(ValueLayout.JAVA_LONG, sge(i, j) + SGE_ADDR);
    }

    /**
     * {@return the length in bytes of scatter/gather entry {@code j} of WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param j the entry's index, below {@link #maxSge()}
     */
    public int sgeLength(int i, int j) {
        return segment.get(ValueLayout.JAVA_INT, sge(i, j) + SGE_LENGTH);
    }

    /**
     * {@return the local key of scatter/gather entry {@code j} of WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param j the entry's index, below {@link #maxSge()}
     */
    public int sgeLkey(int i, int j) {
        return segment.get(ValueLayout.JAVA_INT, sge(i, j) + SGE_LKEY);
    }
}
