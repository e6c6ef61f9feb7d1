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

    /**
     * A batch of {@code capacity} WRs with room for {@code maxSge} scatter/gather entries each, every WR cleared.
     *
     * @param arena where the native memory comes from; the batch lives as long as it
     * @param capacity how many WRs the batch holds, positive
     * @param maxSge scatter/gather entries per WR, positive
     * @return the new batch
     * @throws IllegalArgumentException when {@code capacity} or {@code maxSge} is not positive
     */
    public static SendBatch allocate(Arena arena, int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity and maxSge must be positive, got " + capacity + ", " + maxSge);
        }
        long size = (long) capacity * SEND_WR_SIZE + (long) capacity * maxSge * SGE_SIZE;
        return new SendBatch(arena.allocate(size, 8), capacity, maxSge);
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
        return (long) i * SEND_WR_SIZE;
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
    public SendBatch clear(int i) {
        segment.asSlice(wr(i), SEND_WR_SIZE).fill((byte) 0);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_SG_LIST, segment.address() + sge(i, 0));
        return this;
    }

    /**
     * Sets the id the WR's completion reports.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param wrId the work request id, e.g. made by {@code WrId.encode}
     * @return this batch
     */
    public SendBatch wrId(int i, long wrId) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_WR_ID, wrId);
        return this;
    }

    /**
     * Sets the operation.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param opcode a {@link WrOpcode} value
     * @return this batch
     */
    public SendBatch opcode(int i, int opcode) {
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_OPCODE, opcode);
        return this;
    }

    /**
     * Sets the flags (signaled, fenced, inline, solicited …).
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param flags {@link SendFlags} bits
     * @return this batch
     */
    public SendBatch flags(int i, int flags) {
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_SEND_FLAGS, flags);
        return this;
    }

    /**
     * Sets the immediate data of a {@code *_WITH_IMM} operation, in host order (stored big-endian).
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param imm the immediate data
     * @return this batch
     */
    public SendBatch immData(int i, int imm) {
        segment.set(INT_BE, wr(i) + SEND_WR_IMM_DATA, imm);
        return this;
    }

    /**
     * Sets the rkey a {@code SEND_WITH_INV} or {@code LOCAL_INV} invalidates (it shares the immediate data's field).
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param rkey the memory window's rkey
     * @return this batch
     */
    public SendBatch invalidateRkey(int i, int rkey) {
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_IMM_DATA, rkey);
        return this;
    }

    /**
     * Sets the target of an RDMA WRITE/READ.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param remoteAddr the peer's virtual address
     * @param rkey the peer's remote key for that memory
     * @return this batch
     */
    public SendBatch rdma(int i, long remoteAddr, int rkey) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_RDMA_REMOTE_ADDR, remoteAddr);
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_RDMA_RKEY, rkey);
        return this;
    }

    /**
     * Sets the operands of an atomic (8-byte aligned remote address).
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param remoteAddr the peer's 8-byte aligned virtual address
     * @param compareAdd the value compared (compare-and-swap) or added (fetch-and-add)
     * @param swap the value swapped in when the comparison holds (compare-and-swap)
     * @param rkey the peer's remote key for that memory
     * @return this batch
     */
    public SendBatch atomic(int i, long remoteAddr, long compareAdd, long swap, int rkey) {
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_REMOTE_ADDR, remoteAddr);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_COMPARE_ADD, compareAdd);
        segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_SWAP, swap);
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_ATOMIC_RKEY, rkey);
        return this;
    }

    /**
     * Sets the destination of a UD send.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param ah the address handle of the destination's path
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination's Q_Key
     * @return this batch
     */
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
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param mw the type 2 window to bind
     * @param rkey the window's new rkey
     * @param mr the region the window is bound within
     * @param addr the bound range's start address
     * @param length the bound range's length in bytes
     * @param access the rights the window grants, {@link Access} bits
     * @return this batch
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

    /**
     * Sets how many scatter/gather entries WR {@code i} uses.
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     * @param n the entry count, 0 to {@link #maxSge()}
     * @return this batch
     * @throws IllegalArgumentException when {@code n} is out of range
     */
    public SendBatch numSge(int i, int n) {
        if (n < 0 || n > maxSge) {
            throw new IllegalArgumentException("numSge must be within 0.." + maxSge + ", got " + n);
        }
        segment.set(ValueLayout.JAVA_INT, wr(i) + SEND_WR_NUM_SGE, n);
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
    public SendBatch single(int i, long addr, int length, int lkey) {
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
            segment.set(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_NEXT, base + wr(i + 1));
        }
        segment.set(ValueLayout.JAVA_LONG, wr(count - 1) + SEND_WR_NEXT, 0L);
        return base;
    }

    /**
     * The index of the WR at native address {@code wrAddress} (to map a provider's {@code bad_wr}).
     *
     * @param wrAddress the address of one of this batch's WRs
     * @return its index
     */
    public int indexOf(long wrAddress) {
        return (int) ((wrAddress - segment.address()) / SEND_WR_SIZE);
    }

    // --- readers, for providers that execute WRs themselves (soft-roce) ---

    /**
     * {@return the work request id, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long wrId(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_WR_ID);
    }

    /**
     * {@return the {@link WrOpcode} value, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int opcode(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_OPCODE);
    }

    /**
     * {@return the {@link SendFlags} bits, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int flags(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_SEND_FLAGS);
    }

    /**
     * {@return the immediate data, in host order, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int immData(int i) {
        return segment.get(INT_BE, wr(i) + SEND_WR_IMM_DATA);
    }

    /**
     * {@return the rkey to invalidate (the immediate data's field, native order), from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int invalidateRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_IMM_DATA);
    }

    /**
     * {@return the remote address of an RDMA WRITE/READ, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long remoteAddr(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_RDMA_REMOTE_ADDR);
    }

    /**
     * {@return the remote key of an RDMA WRITE/READ, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int rkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_RDMA_RKEY);
    }

    /**
     * {@return the compare (or add) operand of an atomic, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long atomicCompareAdd(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_COMPARE_ADD);
    }

    /**
     * {@return the swap operand of an atomic, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long atomicSwap(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_ATOMIC_SWAP);
    }

    /**
     * {@return the remote key of an atomic, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int atomicRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_ATOMIC_RKEY);
    }

    /**
     * {@return the address handle value of a UD send ({@link AddressHandle#handle()}), from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long udAh(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_UD_AH);
    }

    /**
     * {@return the destination QP number of a UD send, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int udRemoteQpn(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_UD_REMOTE_QPN);
    }

    /**
     * {@return the destination Q_Key of a UD send, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int udRemoteQkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_UD_REMOTE_QKEY);
    }

    /**
     * {@return how many scatter/gather entries WR {@code i} uses}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int numSge(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_NUM_SGE);
    }

    /**
     * {@return the window handle of a {@code BIND_MW}, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long bindMwHandle(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_MW);
    }

    /**
     * {@return the window's new rkey of a {@code BIND_MW}, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int bindMwRkey(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_BIND_MW_RKEY);
    }

    /**
     * {@return the memory region handle of a {@code BIND_MW}, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long bindMwMrHandle(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_MR);
    }

    /**
     * {@return the bound range's start address of a {@code BIND_MW}, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long bindMwAddr(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_ADDR);
    }

    /**
     * {@return the bound range's length of a {@code BIND_MW}, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public long bindMwLength(int i) {
        return segment.get(ValueLayout.JAVA_LONG, wr(i) + SEND_WR_BIND_MW_LENGTH);
    }

    /**
     * {@return the {@link Access} bits of a {@code BIND_MW}, from WR {@code i}}
     *
     * @param i the WR's index, from 0 to {@link #capacity()} - 1
     */
    public int bindMwAccess(int i) {
        return segment.get(ValueLayout.JAVA_INT, wr(i) + SEND_WR_BIND_MW_ACCESS);
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
