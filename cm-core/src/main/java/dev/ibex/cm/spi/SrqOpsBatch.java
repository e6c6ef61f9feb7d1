package dev.ibex.cm.spi;

import static dev.ibex.cm.spi.VerbsAbi.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable array of tag-matching list operations in {@code struct ibv_ops_wr} layout with their {@code ibv_sge}
 * arrays, for {@link TagMatchingSrq#postSrqOps}: the rdma-core provider hands {@link #link linked} operations to
 * {@code ibv_post_srq_ops} without copying, the soft provider reads the same bytes. A flyweight like
 * {@link RecvBatch}: accessors read and write native memory in place and allocate nothing. Confined to the posting
 * thread.
 */
public final class SrqOpsBatch {
    /** {@code IBV_WR_TAG_ADD}: add a tagged buffer to the matching list; the provider writes its handle back. */
    public static final int TAG_ADD = 0;
    /** {@code IBV_WR_TAG_DEL}: remove the tagged buffer of a handle. */
    public static final int TAG_DEL = 1;
    /** {@code IBV_WR_TAG_SYNC}: only report the unexpected count ({@link #TM_SYNC}). */
    public static final int TAG_SYNC = 2;
    /** {@code IBV_OPS_SIGNALED}: the operation completes on the SRQ's CQ, identified by its {@link #wrId}. */
    public static final int SIGNALED = 1;
    /** {@code IBV_OPS_TM_SYNC}: the operation reports {@link #unexpectedCnt}, the unexpected messages software handled. */
    public static final int TM_SYNC = 1 << 1;

    private final MemorySegment segment;
    private final int capacity;
    private final int maxSge;
    private final long sgeBase;

    private SrqOpsBatch(MemorySegment segment, int capacity, int maxSge) {
        this.segment = segment;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.sgeBase = (long) capacity * OPS_WR_SIZE;
        for (int i = 0; i < capacity; i++) {
            clear(i);
        }
    }

    /**
     * A batch of {@code capacity} operations with room for {@code maxSge} scatter entries each, every one cleared.
     *
     * @param arena where the native memory comes from; the batch lives as long as it
     * @param capacity how many operations the batch holds, positive
     * @param maxSge scatter entries per tagged buffer, positive
     * @return the new batch
     * @throws IllegalArgumentException when {@code capacity} or {@code maxSge} is not positive
     */
    public static SrqOpsBatch allocate(Arena arena, int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity and maxSge must be positive, got " + capacity + ", " + maxSge);
        }
        long size = (long) capacity * OPS_WR_SIZE + (long) capacity * maxSge * SGE_SIZE;
        return new SrqOpsBatch(arena.allocate(size, 8), capacity, maxSge);
    }

    /** {@return the native memory of the batch: the operations, then their scatter arrays} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return how many operations the batch holds} */
    public int capacity() {
        return capacity;
    }

    /** {@return how many scatter entries each operation has room for} */
    public int maxSge() {
        return maxSge;
    }

    private static long op(int i) {
        return (long) i * OPS_WR_SIZE;
    }

    private long sgeAt(int i, int j) {
        return sgeBase + ((long) i * maxSge + j) * SGE_SIZE;
    }

    private void check(int i) {
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("operation " + i + " is outside the batch of " + capacity);
        }
    }

    /**
     * Resets operation {@code i} to zero (keeping its scatter pointer).
     *
     * @param i the operation's index, from 0 to {@link #capacity()} - 1
     * @return this batch
     */
    public SrqOpsBatch clear(int i) {
        check(i);
        segment.asSlice(op(i), OPS_WR_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_SG_LIST, segment.address() + sgeAt(i, 0));
        return this;
    }

    private SrqOpsBatch head(int i, long wrId, int opcode, int flags) {
        check(i);
        segment.set(ValueLayout.JAVA_LONG, op(i) + OPS_WR_WR_ID, wrId);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_OPCODE, opcode);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_FLAGS, flags);
        return this;
    }

    /**
     * Makes operation {@code i} a {@link #TAG_ADD} with no scatter entries yet (add them with {@link #sge} and
     * {@link #numSge}, or {@link #single}).
     *
     * @param i the operation's index
     * @param wrId identifies the operation's own completion
     * @param flags {@link #SIGNALED} and/or {@link #TM_SYNC}
     * @param recvWrId identifies the tagged buffer in its {@link WcOpcode#TM_RECV} completion
     * @param tag the tag the buffer waits for
     * @param mask which tag bits must match: a message matches when {@code msgTag & mask == tag}
     * @return this batch
     */
    public SrqOpsBatch tagAdd(int i, long wrId, int flags, long recvWrId, long tag, long mask) {
        head(i, wrId, TAG_ADD, flags);
        segment.set(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_RECV_WR_ID, recvWrId);
        segment.set(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_TAG, tag);
        segment.set(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_MASK, mask);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_ADD_NUM_SGE, 0);
        return this;
    }

    /**
     * Makes operation {@code i} a {@link #TAG_DEL}.
     *
     * @param i the operation's index
     * @param wrId identifies the operation's completion
     * @param flags {@link #SIGNALED} and/or {@link #TM_SYNC}
     * @param handle what the {@link #TAG_ADD} of the buffer returned ({@link #handle(int)})
     * @return this batch
     */
    public SrqOpsBatch tagDel(int i, long wrId, int flags, int handle) {
        head(i, wrId, TAG_DEL, flags);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_HANDLE, handle);
        return this;
    }

    /**
     * Makes operation {@code i} a {@link #TAG_SYNC} reporting {@code unexpectedCnt} ({@link #TM_SYNC} is set).
     *
     * @param i the operation's index
     * @param wrId identifies the operation's completion
     * @param flags {@link #SIGNALED} or 0
     * @param unexpectedCnt the unexpected messages software has handled
     * @return this batch
     */
    public SrqOpsBatch tagSync(int i, long wrId, int flags, int unexpectedCnt) {
        head(i, wrId, TAG_SYNC, flags | TM_SYNC);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_UNEXPECTED_CNT, unexpectedCnt);
        return this;
    }

    /**
     * Makes operation {@code i} report {@code unexpectedCnt} too: sets {@link #TM_SYNC} and the count.
     *
     * @param i the operation's index
     * @param unexpectedCnt the unexpected messages software has handled
     * @return this batch
     */
    public SrqOpsBatch unexpectedCnt(int i, int unexpectedCnt) {
        check(i);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_FLAGS, flags(i) | TM_SYNC);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_UNEXPECTED_CNT, unexpectedCnt);
        return this;
    }

    /**
     * Sets scatter entry {@code j} of operation {@code i}'s tagged buffer.
     *
     * @param i the operation's index
     * @param j the entry's index, from 0 to {@link #maxSge()} - 1
     * @param addr the entry's start address
     * @param length its length in bytes
     * @param lkey the local key of the region it lies in
     * @return this batch
     */
    public SrqOpsBatch sge(int i, int j, long addr, int length, int lkey) {
        check(i);
        if (j < 0 || j >= maxSge) {
            throw new IndexOutOfBoundsException("scatter entry " + j + " is outside the " + maxSge + " of the batch");
        }
        long s = sgeAt(i, j);
        segment.set(ValueLayout.JAVA_LONG, s + SGE_ADDR, addr);
        segment.set(ValueLayout.JAVA_INT, s + SGE_LENGTH, length);
        segment.set(ValueLayout.JAVA_INT, s + SGE_LKEY, lkey);
        return this;
    }

    /**
     * Sets how many scatter entries operation {@code i}'s tagged buffer has.
     *
     * @param i the operation's index
     * @param n the count (a provider refuses more than its {@code max_sge})
     * @return this batch
     */
    public SrqOpsBatch numSge(int i, int n) {
        check(i);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_ADD_NUM_SGE, n);
        return this;
    }

    /**
     * Makes operation {@code i}'s tagged buffer one scatter entry.
     *
     * @param i the operation's index
     * @param addr the buffer's address
     * @param length its length in bytes
     * @param lkey the local key of its region
     * @return this batch
     */
    public SrqOpsBatch single(int i, long addr, int length, int lkey) {
        return sge(i, 0, addr, length, lkey).numSge(i, 1);
    }

    /**
     * Writes the handle a provider gave the buffer of {@link #TAG_ADD} {@code i} ({@code tm.handle}).
     *
     * @param i the operation's index
     * @param handle the handle
     */
    public void handle(int i, int handle) {
        check(i);
        segment.set(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_HANDLE, handle);
    }

    /**
     * Chains operations 0..count-1 through their {@code next} pointers (the last gets NULL).
     *
     * @param count how many to chain, 1 to {@link #capacity()}
     * @return the native address of operation 0
     * @throws IllegalArgumentException when {@code count} is out of range
     */
    public long link(int count) {
        if (count <= 0 || count > capacity) {
            throw new IllegalArgumentException("count must be within 1.." + capacity + ", got " + count);
        }
        long base = segment.address();
        for (int i = 0; i < count - 1; i++) {
            segment.set(ValueLayout.JAVA_LONG, op(i) + OPS_WR_NEXT, base + op(i + 1));
        }
        segment.set(ValueLayout.JAVA_LONG, op(count - 1) + OPS_WR_NEXT, 0L);
        return base;
    }

    /**
     * The index of the operation at native address {@code address} (to map a provider's {@code bad_op}).
     *
     * @param address the address of one of this batch's operations
     * @return its index
     */
    public int indexOf(long address) {
        return (int) ((address - segment.address()) / OPS_WR_SIZE);
    }

    /**
     * {@return the operation's id, from operation {@code i}}
     *
     * @param i the operation's index
     */
    public long wrId(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_LONG, op(i) + OPS_WR_WR_ID);
    }

    /**
     * {@return the opcode ({@link #TAG_ADD}, {@link #TAG_DEL}, {@link #TAG_SYNC}), from operation {@code i}}
     *
     * @param i the operation's index
     */
    public int opcode(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_INT, op(i) + OPS_WR_OPCODE);
    }

    /**
     * {@return the flags ({@link #SIGNALED}, {@link #TM_SYNC}), from operation {@code i}}
     *
     * @param i the operation's index
     */
    public int flags(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_INT, op(i) + OPS_WR_FLAGS);
    }

    /**
     * {@return the unexpected count reported (with {@link #TM_SYNC}), from operation {@code i}}
     *
     * @param i the operation's index
     */
    public int unexpectedCnt(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_UNEXPECTED_CNT);
    }

    /**
     * {@return the handle: the buffer a {@link #TAG_DEL} removes, or what a posted {@link #TAG_ADD} was given}
     *
     * @param i the operation's index
     */
    public int handle(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_HANDLE);
    }

    /**
     * {@return the id the tagged buffer's receive completion reports, from {@link #TAG_ADD} {@code i}}
     *
     * @param i the operation's index
     */
    public long recvWrId(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_RECV_WR_ID);
    }

    /**
     * {@return the tag, from {@link #TAG_ADD} {@code i}}
     *
     * @param i the operation's index
     */
    public long tag(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_TAG);
    }

    /**
     * {@return the mask, from {@link #TAG_ADD} {@code i}}
     *
     * @param i the operation's index
     */
    public long mask(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_LONG, op(i) + OPS_WR_TM_ADD_MASK);
    }

    /**
     * {@return how many scatter entries the tagged buffer has, from {@link #TAG_ADD} {@code i}}
     *
     * @param i the operation's index
     */
    public int numSge(int i) {
        check(i);
        return segment.get(ValueLayout.JAVA_INT, op(i) + OPS_WR_TM_ADD_NUM_SGE);
    }

    /**
     * {@return the address of scatter entry {@code j} of operation {@code i}}
     *
     * @param i the operation's index
     * @param j the entry's index, from 0 to {@link #maxSge()} - 1
     */
    public long sgeAddr(int i, int j) {
        return segment.get(ValueLayout.JAVA_LONG, sgeAt(i, j) + SGE_ADDR);
    }

    /**
     * {@return the length of scatter entry {@code j} of operation {@code i}}
     *
     * @param i the operation's index
     * @param j the entry's index, from 0 to {@link #maxSge()} - 1
     */
    public int sgeLength(int i, int j) {
        return segment.get(ValueLayout.JAVA_INT, sgeAt(i, j) + SGE_LENGTH);
    }

    /**
     * {@return the local key of scatter entry {@code j} of operation {@code i}}
     *
     * @param i the operation's index
     * @param j the entry's index, from 0 to {@link #maxSge()} - 1
     */
    public int sgeLkey(int i, int j) {
        return segment.get(ValueLayout.JAVA_INT, sgeAt(i, j) + SGE_LKEY);
    }
}
