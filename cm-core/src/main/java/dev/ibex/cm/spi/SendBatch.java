package dev.ibex.cm.spi;

import static dev.ibex.cm.spi.VerbsAbi.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A reusable array of send work requests in {@code struct ibv_send_wr} layout, each with its own
 * {@code ibv_sge} array ({@link VerbsAbi}). Fill entries 0..n-1 and post them with
 * {@link QueuePair#postSend(SendBatch, int)}: the rdma-core provider chains them ({@link #link}) and posts the
 * chain with one call, without copying. A flyweight: setters write native memory and allocate nothing.
 *
 * <p>Fields not set since the last {@link #clear(int)} keep their previous values, so reusing a prepared WR
 * and changing one field is cheap (the idea of DiSNI's stateful verb calls).
 */
public final class SendBatch {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment segment;
    private final int capacity;
    private final int maxSge;
    private final long sgeBase;

    private SendBatch(MemorySegment segment, int capacity, int maxSge) {
        this.segment = segment;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.sgeBase = (long) capacity * SEND_WR_SIZE;
        for (int i = 0; i < capacity; i++) {
            clear(i);
        }
    }

    /** A batch of {@code capacity} WRs with room for {@code maxSge} scatter/gather entries each. */
    public static SendBatch allocate(Arena arena, int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity and maxSge must be positive, got " + capacity + ", " + maxSge);
        }
        long size = (long) capacity * SEND_WR_SIZE + (long) capacity * maxSge * SGE_SIZE;
        return new SendBatch(arena.allocate(size, 8), capacity, maxSge);
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
        return (long) i * SEND_WR_SIZE;
    }

    private long sge(int i, int j) {
        return sgeBase + ((long) i * maxSge + j) * SGE_SIZE;
    }

    /** Resets WR {@code i} to zero (keeping its scatter/gather pointer). */
    public SendBatch clear(int i) {
        segment.asSlice(wr(i), SEND_WR_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_SG_LIST, segment.address() + sge(i, 0));
        return this;
    }

    public SendBatch wrId(int i, long wrId) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_WR_ID, wrId);
        return this;
    }

    /** {@link WrOpcode} value. */
    public SendBatch opcode(int i, int opcode) {
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_OPCODE, opcode);
        return this;
    }

    /** {@link SendFlags} bits. */
    public SendBatch flags(int i, int flags) {
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_SEND_FLAGS, flags);
        return this;
    }

    /** Immediate data in host order (stored big-endian). */
    public SendBatch immData(int i, int imm) {
        segment.set(INT_BE, wr(i) + SEND_WR_IMM_DATA, imm);
        return this;
    }

    public SendBatch invalidateRkey(int i, int rkey) {
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_IMM_DATA, rkey);
        return this;
    }

    /** Target of an RDMA WRITE/READ. */
    public SendBatch rdma(int i, long remoteAddr, int rkey) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_RDMA_REMOTE_ADDR, remoteAddr);
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_RDMA_RKEY, rkey);
        return this;
    }

    /** Operands of an atomic (8-byte aligned remote address). */
    public SendBatch atomic(int i, long remoteAddr, long compareAdd, long swap, int rkey) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_REMOTE_ADDR, remoteAddr);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_COMPARE_ADD, compareAdd);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_SWAP, swap);
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_ATOMIC_RKEY, rkey);
        return this;
    }

    /** Destination of a UD send. */
    public SendBatch ud(int i, AddressHandle ah, int remoteQpn, int remoteQkey) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_UD_AH, ah.handle());
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_UD_REMOTE_QPN, remoteQpn);
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_UD_REMOTE_QKEY, remoteQkey);
        return this;
    }

    /**
     * Operands of a {@link WrOpcode#BIND_MW}: window {@code mw} gets the rkey {@code rkey} (its consumer key changed,
     * see {@link MemoryWindow#nextRkey}) and {@code [addr, addr + length)} of {@code mr} with {@code access}
     * ({@link Access} bits). Set no scatter/gather entries.
     */
    public SendBatch bindMw(int i, MemoryWindow mw, int rkey, MemoryRegion mr, long addr, long length, int access) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_MW, mw.handle());
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_BIND_MW_RKEY, rkey);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_MR, mr.handle());
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_ADDR, addr);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_LENGTH, length);
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_BIND_MW_ACCESS, access);
        return this;
    }

    /** Sets scatter/gather entry {@code j} of WR {@code i}; does not change the WR's entry count. */
    public SendBatch sge(int i, int j, long addr, int length, int lkey) {
        if (j >= maxSge) {
            throw new IndexOutOfBoundsException("sge " + j + " of a batch with maxSge " + maxSge);
        }
        long s = sge(i, j);
        segment.set(ValueLayout.JAVA_LONG, s + SGE_ADDR, addr);
        segment.set(ValueLayout.JAVA_INT, s + SGE_LENGTH, length);
        segment.set(ValueLayout.JAVA_INT, s + SGE_LKEY, lkey);
        return this;
    }

    public SendBatch numSge(int i, int n) {
        if (n < 0 || n > maxSge) {
            throw new IllegalArgumentException("numSge must be within 0.." + maxSge + ", got " + n);
        }
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_NUM_SGE, n);
        return this;
    }

    /** Shorthand: exactly one scatter/gather entry covering {@code [addr, addr+length)} of an MR. */
    public SendBatch single(int i, long addr, int length, int lkey) {
        return sge(i, 0, addr, length, lkey).numSge(i, 1);
    }

    /**
     * Chains WRs 0..count-1 through their {@code next} pointers (the last gets NULL).
     *
     * @return the native address of WR 0
     */
    public long link(int count) {
        if (count <= 0 || count > capacity) {
            throw new IllegalArgumentException("count must be within 1.." + capacity + ", got " + count);
        }
        long base = segment.address();
        for (int i = 0; i < count - 1; i++) {
            segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_NEXT, base + wr(i + 1));
        }
        segment.set(ValueLayout.JAVA_LONG, wr(count - 1) + SEND_WR_NEXT, 0L);
        return base;
    }

    /** The index of the WR at native address {@code wrAddress} (to map a provider's {@code bad_wr}). */
    public int indexOf(long wrAddress) {
        return (int) ((wrAddress - segment.address()) / SEND_WR_SIZE);
    }

    // --- readers, for providers that execute WRs themselves (soft-roce) ---

    public long wrId(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_WR_ID);
    }

    public int opcode(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_OPCODE);
    }

    public int flags(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_SEND_FLAGS);
    }

    public int immData(int i) {
        return segment.get(INT_BE, wr(i) + SEND_WR_IMM_DATA);
    }

    public int invalidateRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_IMM_DATA);
    }

    public long remoteAddr(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_RDMA_REMOTE_ADDR);
    }

    public int rkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_RDMA_RKEY);
    }

    public long atomicCompareAdd(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_COMPARE_ADD);
    }

    public long atomicSwap(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_SWAP);
    }

    public int atomicRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_ATOMIC_RKEY);
    }

    public long udAh(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_UD_AH);
    }

    public int udRemoteQpn(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_UD_REMOTE_QPN);
    }

    public int udRemoteQkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_UD_REMOTE_QKEY);
    }

    public int numSge(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_NUM_SGE);
    }

    public long bindMwHandle(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_MW);
    }

    public int bindMwRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_BIND_MW_RKEY);
    }

    public long bindMwMrHandle(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_MR);
    }

    public long bindMwAddr(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_ADDR);
    }

    public long bindMwLength(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_LENGTH);
    }

    public int bindMwAccess(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_BIND_MW_ACCESS);
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
