package dev.ibex.softroce.wire;

import static dev.ibex.softroce.wire.NetworkOrder.u32;
import static dev.ibex.softroce.wire.NetworkOrder.u64;

import java.lang.foreign.MemorySegment;

/**
 * RDMA Extended Transport Header (16 bytes): virtual address (64), R_Key (32), DMA length (32).
 * Carried by RDMA WRITE FIRST/ONLY and RDMA READ requests (where the length is the whole read).
 */
public final class Reth {
    /** Header length in bytes. */
    public static final int SIZE = 16;

    private Reth() {
    }

    /** Remote virtual address. */
    public static long virtualAddress(MemorySegment s, long o) {
        return u64(s, o);
    }

    public static void virtualAddress(MemorySegment s, long o, long va) {
        u64(s, o, va);
    }

    /** Remote key. */
    public static int rKey(MemorySegment s, long o) {
        return u32(s, o + 8);
    }

    public static void rKey(MemorySegment s, long o, int rKey) {
        u32(s, o + 8, rKey);
    }

    /** DMA length in bytes, an unsigned 32-bit value (use {@link Integer#toUnsignedLong(int)}). */
    public static int dmaLength(MemorySegment s, long o) {
        return u32(s, o + 12);
    }

    public static void dmaLength(MemorySegment s, long o, int length) {
        u32(s, o + 12, length);
    }

    /** Writes all three fields. */
    public static void write(MemorySegment s, long o, long va, int rKey, int dmaLength) {
        virtualAddress(s, o, va);
        rKey(s, o, rKey);
        dmaLength(s, o, dmaLength);
    }
}
